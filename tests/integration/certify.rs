//! `optimist certify`: obligations, witnesses, and agreement with the checker.
