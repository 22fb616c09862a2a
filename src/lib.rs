//! optimist: a model checker for concurrent guarded-command systems.
