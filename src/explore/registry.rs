//! The reductions, as layers, and the one list of them.
//!
//! A reduction is a [`Layer`]: a value that states its contract and the
//! theorem it rests on, and that applies itself to a model (a [`Mode`]:
//! its judgement of the side conditions, and its search); its
//! [`Reduction`] handle gives it its name.
//! Stubborn sets are not a base of their own: [`Stacked`] puts them on any
//! base layer, which says how it runs under them.
//!
//! [`REGISTRY`] lists every reduction the command line offers; `check`,
//! `classify`, `graph`, `certify` and the reports ask a [`Reduction`]
//! (a handle to one layer) their questions instead of matching names.
//! Adding a reduction takes its module and one entry here.

use std::fmt;

use super::contract::{Contract, Mode};
use super::summarized::Base;
use super::{Options, full, movers, sc, stubborn};
use crate::certify::CertifyTheorem as Theorem;
use crate::model::Model;

/// A reduction: what it promises, and how it runs (its [`Reduction`]
/// handle names it).
pub(crate) trait Layer: Sync {
    /// Its contract under `options`, whatever the model (before the
    /// store's note, which [`super::contract`] adds).
    fn contract(&self, options: &Options) -> Contract;
    /// The reduction applied to `model`.
    fn mode<'m>(&self, model: &'m Model, options: &Options) -> Box<dyn Mode + 'm>;
    /// The theorem `certify` checks the hypotheses of, if any.
    fn theorem(&self) -> Option<Theorem> {
        None
    }
    /// The transactions `--summaries` reads off procedure summaries in its
    /// stead, where it can (see [`super::contract::mode`]).
    fn summarized(&self) -> Option<Base> {
        None
    }
    /// Whether it explores the original system itself.
    fn is_full(&self) -> bool {
        false
    }
    /// Whether stubborn sets select among its steps.
    fn stubborn(&self) -> bool {
        false
    }
    /// The contract of stubborn sets stacked on it.
    fn stacked_contract(&self, options: &Options) -> Contract {
        stubborn::over(self.contract(options))
    }
    /// Stubborn sets stacked on it, applied to `model`: a selective search
    /// among the transactions of its mode.
    fn stacked_mode<'m>(&self, model: &'m Model, options: &Options) -> Box<dyn Mode + 'm> {
        // Summaries are never stacked on (`validate` refuses them): the
        // base runs its own transactions, which is what its mode is.
        let base = self.mode(model, options);
        Box::new(super::combined::Stacked::new(model, base, options))
    }
}

/// A handle to one registered layer, with its name and help: which state
/// space to explore.
#[derive(Clone, Copy)]
pub struct Reduction {
    /// The name used on the command line and in reports.
    name: &'static str,
    /// What `--help` says of it.
    help: &'static str,
    layer: &'static dyn Layer,
}

impl Reduction {
    /// The original system: every interleaving of every transition.
    pub const NONE: Reduction = Reduction::of(
        "none",
        "Full exploration of the original system",
        &full::FullLayer,
    );
    /// Stoller and Cohen's reduced system: one visible transition followed
    /// by a maximal run of the same thread's invisible transitions.
    pub const SC: Reduction = Reduction::of("sc", "Stoller-Cohen reduction", &sc::ScLayer);
    /// Flanagan and Qadeer's transactions: right movers, one committing
    /// action, left movers. Where deadlocks are checked, a transaction ends
    /// before a statement that may block, so that they are preserved.
    pub const MOVERS: Reduction = Reduction::of(
        "movers",
        "Flanagan-Qadeer transactions: right movers, a commit, left movers",
        &movers::MoversLayer,
    );
    /// Selective search with conditional stubborn sets on the original
    /// system (Godefroid).
    pub const STUBBORN: Reduction = Reduction::of(
        "stubborn",
        "Selective search with conditional stubborn sets (no transactions)",
        &Stacked(&full::FullLayer),
    );
    /// Stubborn sets over the Stoller-Cohen reduced steps.
    pub const SC_STUBBORN: Reduction = Reduction::of(
        "sc+stubborn",
        "Stubborn sets over the Stoller-Cohen reduced steps",
        &Stacked(&sc::ScLayer),
    );
    /// Stubborn sets over the mover transactions.
    pub const MOVERS_STUBBORN: Reduction = Reduction::of(
        "movers+stubborn",
        "Stubborn sets over the mover transactions",
        &Stacked(&movers::MoversLayer),
    );

    /// The layer `layer` called `name`, registered or not (a test's own).
    pub(crate) const fn of(
        name: &'static str,
        help: &'static str,
        layer: &'static dyn Layer,
    ) -> Reduction {
        Reduction { name, help, layer }
    }

    /// The registered reduction called `name`.
    pub fn named(name: &str) -> Option<Reduction> {
        REGISTRY.iter().copied().find(|r| r.name() == name)
    }

    /// Every registered reduction, in the order of the command line's help.
    pub fn all() -> &'static [Reduction] {
        &REGISTRY
    }

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// What `--help` says of it.
    pub fn help(self) -> &'static str {
        self.help
    }

    /// The theorem `certify` checks the hypotheses of: that of the
    /// transactions, also under stubborn sets (whose part it leaves
    /// uncertified); none for full exploration or stubborn sets alone.
    pub fn theorem(self) -> Option<Theorem> {
        self.layer.theorem()
    }

    /// Whether `--summaries` applies.
    pub fn supports_summaries(self) -> bool {
        self.layer.summarized().is_some()
    }

    /// Whether it explores the original system itself.
    pub fn is_full(self) -> bool {
        self.layer.is_full()
    }

    /// Whether stubborn sets select among its steps.
    pub fn stubborn(self) -> bool {
        self.layer.stubborn()
    }

    /// Its layer.
    pub(crate) fn layer(self) -> &'static dyn Layer {
        self.layer
    }
}

/// Every reduction the command line offers, in the order of its help.
static REGISTRY: [Reduction; 6] = [
    Reduction::NONE,
    Reduction::SC,
    Reduction::MOVERS,
    Reduction::STUBBORN,
    Reduction::SC_STUBBORN,
    Reduction::MOVERS_STUBBORN,
];

impl std::str::FromStr for Reduction {
    type Err = super::Unsupported;

    /// The registered reduction called `name`.
    fn from_str(name: &str) -> Result<Reduction, super::Unsupported> {
        Reduction::named(name).ok_or_else(|| {
            let names: Vec<&str> = REGISTRY.iter().map(|r| r.name()).collect();
            super::Unsupported(format!(
                "no reduction `{name}`: the reductions are {}",
                names.join(", ")
            ))
        })
    }
}

impl Default for Reduction {
    /// `sc`.
    fn default() -> Reduction {
        Reduction::SC
    }
}

impl PartialEq for Reduction {
    fn eq(&self, other: &Reduction) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Reduction {}

impl fmt::Debug for Reduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Stubborn sets stacked on a base layer.
pub(crate) struct Stacked(&'static dyn Layer);

impl Layer for Stacked {
    fn contract(&self, options: &Options) -> Contract {
        self.0.stacked_contract(options)
    }
    fn mode<'m>(&self, model: &'m Model, options: &Options) -> Box<dyn Mode + 'm> {
        self.0.stacked_mode(model, options)
    }
    fn theorem(&self) -> Option<Theorem> {
        self.0.theorem()
    }
    fn stubborn(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{Verdict, check};

    /// A layer defined here only: full exploration under another name.
    /// That it checks a model shows that a reduction needs its module and
    /// nothing else but a handle (and, to be offered, one registry entry).
    struct Again;

    impl Layer for Again {
        fn contract(&self, _: &Options) -> Contract {
            Contract {
                name: "again".into(),
                ..full::contract()
            }
        }
        fn mode<'m>(&self, model: &'m Model, _: &Options) -> Box<dyn Mode + 'm> {
            Box::new(full::Plain::new(model))
        }
        fn is_full(&self) -> bool {
            true
        }
    }

    /// Its handle, registered nowhere.
    const AGAIN: Reduction = Reduction::of("again", "Full exploration, once more", &Again);

    #[test]
    fn a_layer_of_its_own_checks_as_full_exploration() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/account.gc");
        let (_, m) = crate::load(&path, &Vec::new()).expect("the model loads");
        let run = |reduction| {
            let options = Options {
                reduction,
                threads: 1,
                ..Options::default()
            };
            check(&m, &options, &mut |_| {})
        };
        let (again, full) = (run(AGAIN), run(Reduction::NONE));
        assert_eq!(again.verdict, Verdict::Holds);
        assert_eq!((again.stats.states, full.stats.states), (39, 39));
        assert_eq!(again.stats.transitions, full.stats.transitions);
        let options = Options {
            reduction: AGAIN,
            ..Options::default()
        };
        assert_eq!(super::super::contract(&options).unwrap().name, "again");
        assert_eq!(Reduction::named("again"), None);
    }

    #[test]
    fn the_registry_names_each_reduction_once() {
        let names: Vec<&str> = Reduction::all().iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            [
                "none",
                "sc",
                "movers",
                "stubborn",
                "sc+stubborn",
                "movers+stubborn"
            ]
        );
        for r in Reduction::all() {
            assert_eq!(Reduction::named(r.name()), Some(*r));
        }
    }
}
