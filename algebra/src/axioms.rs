//! The axioms of omega algebra (digest, section 1), written in the script
//! language and parsed once. Everything the kernel proves rests on these,
//! on the complement axioms of declared predicates, and on cited hypotheses.

use std::sync::OnceLock;

use crate::script::Statement;

/// The axioms, one per line, as in the digest. `x <= y` is `x + y = y` and
/// is built into the kernel. A declared predicate `q` comes with a
/// complement `~q`; the `compl-*` axioms say what that means.
pub const AXIOM_SOURCE: &str = "\
var x, y, z
var pred a
axiom add-assoc: (x + y) + z = x + (y + z)
axiom add-comm: x + y = y + x
axiom add-idem: x + x = x
axiom add-zero: 0 + x = x
axiom seq-assoc: x (y z) = (x y) z
axiom seq-zero-l: 0 x = 0
axiom seq-zero-r: x 0 = 0
axiom seq-one-l: 1 x = x
axiom seq-one-r: x 1 = x
axiom dist-l: x (y + z) = x y + x z
axiom dist-r: (x + y) z = x z + y z
axiom star-unfold: x* = 1 + x + x* x*
axiom star-ind-r: x y <= x => x y* = x
axiom star-ind-l: x y <= y => x* y = y
axiom omega-star: x <w> y = x^w + x* y
axiom omega-unfold: x^w = x x^w
axiom omega-ind: x <= y x + z => x <= y <w> z
axiom compl-l: a ~a = 0
axiom compl-r: ~a a = 0
axiom compl-sum: a + ~a = 1
";

/// An axiom: a label and a statement (an equation or a Horn clause).
#[derive(Clone, Debug, PartialEq)]
pub struct Axiom {
    /// Its name, such as `star-ind-l`.
    pub label: String,
    /// What it states.
    pub statement: Statement,
}

/// The parsed axioms, in source order.
pub fn axioms() -> &'static [Axiom] {
    static AXIOMS: OnceLock<Vec<Axiom>> = OnceLock::new();
    AXIOMS.get_or_init(|| match crate::parser::parse_axiom_source() {
        Ok(a) => a,
        // The source is a constant checked by the unit tests below.
        Err(e) => unreachable!("built-in axioms do not parse: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_axioms_parse() {
        let ax = axioms();
        assert_eq!(ax.len(), 20);
        let horn: Vec<_> = ax
            .iter()
            .filter(|a| a.statement.is_horn())
            .map(|a| a.label.as_str())
            .collect();
        assert_eq!(horn, ["star-ind-r", "star-ind-l", "omega-ind"]);
        assert_eq!(ax[1].statement.conclusions[0].to_string(), "x + y = y + x");
    }
}
