//! Invariant checkers over read-only views of the world, one file per property.
