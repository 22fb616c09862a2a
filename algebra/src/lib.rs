//! The omega-algebra proof kernel (work in progress).
