"""The compiled rules core: card and dice tables, the numba state machine, the observer and the invariant checks."""
