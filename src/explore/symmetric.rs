//! The search over orbits (`--symmetry`): the same core, over the space of
//! representatives ([`Quotient`]), with every expander's successors
//! replaced by theirs ([`Canonical`]). Whatever the reduction, its steps
//! from a representative are steps of the system, and a permutation of the
//! copies maps a run onto a run (see `crate::symmetry`); so a state is
//! reachable exactly when its representative is, and every property that
//! the permutations keep (they all keep the safety properties, deadlocks
//! and the discipline, which `symmetry::detect` checks) has the same
//! verdict.
//!
//! A counterexample is found among representatives; [`Quotient::trace`]
//! turns it into a run of the system: each step is taken by the thread
//! that the permutations applied so far make of its thread, and the
//! check's confirmation replays the result as it replays every other.

use super::budget::Budget;
use super::outcome::{Problem, Step};
use super::search::{Emit, Expand, Findings, StepResult, Stop, Watch, replay_checked};
use super::space::Space;
use crate::ltl::Fairness;
use crate::model::{Layout, LockMisuse, Model};
use crate::symmetry::{Analysis, Scratch, Symmetry};

/// The representatives of a model's states under its symmetry.
pub(crate) struct Quotient<'m> {
    model: &'m Model,
    sym: &'m Symmetry,
    init: Vec<i64>,
    /// The permutation that makes the initial state's representative.
    init_sigma: Vec<usize>,
}

impl<'m> Quotient<'m> {
    pub(crate) fn new(model: &'m Model, sym: &'m Symmetry) -> Quotient<'m> {
        let mut init = Vec::new();
        let init_sigma = sym
            .canonical(&model.init, &mut init, &mut Scratch::default())
            .to_vec();
        Quotient {
            model,
            sym,
            init,
            init_sigma,
        }
    }

    /// The representative of `s`, in `out`.
    pub(crate) fn canonical<'o>(
        &self,
        s: &[i64],
        out: &'o mut Vec<i64>,
        x: &mut Scratch,
    ) -> &'o [i64] {
        self.sym.canonical(s, out, x);
        out
    }

    /// The transitions of `path` as the threads `tau` makes of theirs take
    /// them.
    fn map(&self, tau: &[usize], path: &[u32]) -> Vec<u32> {
        let map = |&k: &u32| self.sym.transition(tau, k as usize) as u32;
        path.iter().map(map).collect()
    }
}

impl Space for Quotient<'_> {
    fn layout(&self) -> &Layout {
        &self.model.layout
    }
    fn init(&self) -> &[i64] {
        &self.init
    }
    fn ended(&self, s: &[i64]) -> bool {
        self.model.all_ended(s)
    }
    fn misuses(&self, s: &[i64], out: &mut Vec<(LockMisuse, String)>) {
        self.model.lock_misuses(s, out);
    }
    fn trace<E: Expand>(
        &self,
        exp: &mut E,
        seqs: &[u32],
        tail: Vec<u32>,
        problem: &mut Problem,
    ) -> Vec<Step> {
        let model = self.model;
        let mut walk = Walk::new(self);
        let mut segments = Vec::new();
        if let Some(w) = exp.watch() {
            w.tracing = true;
        }
        for &seq in seqs {
            let Some(path) = nth_path(exp, &walk.c, seq) else {
                break;
            };
            segments.push(walk.step(&path));
        }
        if let Some(w) = exp.watch() {
            w.tracing = false;
        }
        let tau = walk.tau;
        let in_state = matches!(
            problem,
            Problem::Deadlock | Problem::InvisibleCycle { .. } | Problem::EndExcl { .. }
        );
        if !tail.is_empty() {
            segments.push(self.map(&tau, &tail));
        }
        let mut steps = Vec::new();
        let mut last = None;
        replay_checked(
            model,
            &model.init,
            segments.iter().map(Vec::as_slice),
            &mut |step, _, result| {
                last = match result {
                    StepResult::Bad(p) => Some(p),
                    _ => None,
                };
                steps.push(step);
            },
        );
        *problem = match (last, &*problem) {
            (Some(p), _) if !in_state => p,
            (_, p) => self.rename(p, &tau),
        };
        steps
    }
}

impl Quotient<'_> {
    /// A problem of a state found at representative c, for the system's
    /// state τ(c).
    fn rename(&self, p: &Problem, tau: &[usize]) -> Problem {
        let sym = self.sym;
        match p {
            Problem::InvisibleCycle { thread, length } => Problem::InvisibleCycle {
                thread: sym.thread(tau, *thread),
                length: *length,
            },
            Problem::EndExcl { protected, victim } => {
                let slot = self.model.protected[*protected].slot;
                let moved = sym.slot(tau, slot);
                let index = self.model.protected_index[moved as usize];
                Problem::EndExcl {
                    protected: index.map_or(*protected, |i| i as usize),
                    victim: sym.thread(tau, *victim),
                }
            }
            p => p.clone(),
        }
    }
}

/// A walk over representatives, followed in the system: its state is
/// τ(c) for the representative c the walk is at.
pub(crate) struct Walk<'q> {
    q: &'q Quotient<'q>,
    c: Vec<i64>,
    tau: Vec<usize>,
    canon: Vec<i64>,
    x: Scratch,
}

impl<'q> Walk<'q> {
    /// At the initial state's representative.
    pub(crate) fn new(q: &'q Quotient<'q>) -> Walk<'q> {
        Walk {
            q,
            c: q.init.clone(),
            tau: Symmetry::inverse(&q.init_sigma),
            canon: Vec::new(),
            x: Scratch::default(),
        }
    }

    /// Takes `path`, the transitions of an edge from the representative
    /// the walk is at to the next one; the system's transitions, taken by
    /// the threads τ makes of those that take `path`.
    pub(crate) fn step(&mut self, path: &[u32]) -> Vec<u32> {
        let u = replay_checked(self.q.model, &self.c, [path], &mut |_, _, _| {});
        let sigma = self.q.sym.canonical(&u, &mut self.canon, &mut self.x);
        let taken = self.q.map(&self.tau, path);
        self.tau = Symmetry::compose(&self.tau, &Symmetry::inverse(sigma));
        std::mem::swap(&mut self.c, &mut self.canon);
        taken
    }

    /// The system's state: τ(c).
    pub(crate) fn state(&self) -> Vec<i64> {
        let mut out = Vec::new();
        self.q.sym.apply(&self.tau, &self.c, &mut out);
        out
    }
}

/// The transitions of the `seq`-th successor `exp` gives of `s`.
fn nth_path<E: Expand>(exp: &mut E, s: &[i64], seq: u32) -> Option<Vec<u32>> {
    let (mut at, mut found) = (0u32, None);
    let _ = exp.expand(s, &mut Budget::unlimited(), &mut |_, path, _| {
        if at == seq {
            found = Some(path.to_vec());
        }
        at += 1;
        Ok(())
    });
    found
}

impl super::space::Modelled for Quotient<'_> {
    fn model(&self) -> &Model {
        self.model
    }
}

/// An expander (a worker's, borrowed) whose successors are their
/// representatives.
pub(crate) struct Canonical<'s, E> {
    inner: &'s mut E,
    sym: &'s Symmetry,
    out: Vec<i64>,
    x: Scratch,
}

impl<'s, E> Canonical<'s, E> {
    pub(crate) fn new(inner: &'s mut E, sym: &'s Symmetry) -> Self {
        Canonical {
            inner,
            sym,
            out: Vec::new(),
            x: Scratch::default(),
        }
    }
}

impl<E: Expand> Expand for Canonical<'_, E> {
    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        let Canonical { inner, sym, out, x } = self;
        inner.expand(s, budget, &mut |succ, path, b| {
            sym.canonical(succ, out, x);
            emit(out, path, b)
        })
    }

    fn watch(&mut self) -> Option<&mut Watch> {
        self.inner.watch()
    }

    fn take_findings(&mut self, out: &mut Findings) {
        self.inner.take_findings(out);
    }
}

/// The symmetry a check stores the orbits of, and why it stores every
/// state where the model has a symmetry its question does not keep.
pub(crate) struct Orbits {
    /// What detection found (none under `--symmetry off`).
    analysis: Option<Analysis>,
    /// Why the question keeps the symmetry out, where it does.
    refused: Option<String>,
}

impl Orbits {
    /// No symmetry looked for.
    pub(crate) fn off() -> Orbits {
        Orbits {
            analysis: None,
            refused: None,
        }
    }

    /// For safety properties, deadlocks and the discipline, which every
    /// symmetry keeps (see `crate::symmetry`).
    pub(crate) fn safety(model: &Model, options: &super::Options) -> Orbits {
        Orbits {
            analysis: (options.symmetry != super::SymmetryUse::Off)
                .then(|| crate::symmetry::detect(model)),
            refused: None,
        }
    }

    /// For the temporal properties `properties` (indices into `Model::ltl`)
    /// under `fairness`: the quotient keeps a property whose atoms every
    /// permutation maps onto themselves, without fairness (Emerson and
    /// Sistla, "Symmetry and model checking", 1996). Fairness is
    /// per thread, and a state per orbit forgets which copy is which
    /// (Emerson and Sistla, "Utilizing symmetry when model-checking under
    /// fairness assumptions", 1997).
    pub(crate) fn temporal(
        model: &Model,
        options: &super::Options,
        properties: &[usize],
        fairness: Fairness,
    ) -> Orbits {
        let mut o = Orbits::safety(model, options);
        let Some(a) = o.analysis.as_ref().filter(|a| a.symmetry.is_some()) else {
            return o;
        };
        o.refused = if fairness != Fairness::None {
            Some(format!(
                "temporal properties under {} fairness are checked on every state: fairness is per thread, and one state per orbit forgets which copy is which; `--fairness none` checks them over orbits",
                fairness.name()
            ))
        } else {
            (properties.iter())
                .find_map(|&p| a.temporal.get(p)?.as_ref())
                .map(|b| format!("temporal properties are checked on every state: {}", b.why))
        };
        o
    }

    /// The symmetry whose orbits the search stores, if any.
    pub(crate) fn symmetry(&self) -> Option<&Symmetry> {
        match &self.refused {
            Some(_) => None,
            None => self.analysis.as_ref()?.symmetry.as_ref(),
        }
    }

    /// Why no symmetry is used, for `--symmetry on` to say (none where
    /// one is).
    pub(crate) fn unused(&self) -> Option<String> {
        let a = self.analysis.as_ref()?;
        if let Some(sym) = &a.symmetry {
            let refused = self.refused.as_ref()?;
            return Some(format!("symmetry not used for {}: {refused}", sym.threads));
        }
        Some(match a.broken.first() {
            Some(b) => format!(
                "symmetry not used for {}: {}{}",
                b.threads,
                b.place.map_or(String::new(), |p| format!("line {}: ", p.1)),
                b.why
            ),
            None => "symmetry not used: no thread body is run by two threads or more".into(),
        })
    }
}
