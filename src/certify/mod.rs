//! Certifying a model: the hypotheses (11)-(18) of the reduction theorem and
//! the well-formedness conditions, checked on the model itself.
