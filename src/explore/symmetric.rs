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

use super::budget::{Budget, Halt};
use super::outcome::{Problem, Step};
use super::search::{Emit, Expand, Findings, StepResult, Stop, Watch, replay_checked};
use super::space::Space;
use super::visit::{Edges, Visit};
use crate::model::{Layout, LockMisuse, Model};
use crate::symmetry::{Scratch, Symmetry};

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
        // The system's state is τ(c) for the representative c.
        let mut tau = Symmetry::inverse(&self.init_sigma);
        let mut c = self.init.clone();
        let (mut segments, mut x, mut u, mut canon) =
            (Vec::new(), Scratch::default(), Vec::new(), Vec::new());
        if let Some(w) = exp.watch() {
            w.tracing = true;
        }
        for &seq in seqs {
            let Some(path) = nth_path(exp, &c, seq) else {
                break;
            };
            u = replay_checked(model, &c, [&path[..]], &mut |_, _, _| {});
            let sigma = self.sym.canonical(&u, &mut canon, &mut x);
            segments.push(self.map(&tau, &path));
            tau = Symmetry::compose(&tau, &Symmetry::inverse(sigma));
            std::mem::swap(&mut c, &mut canon);
        }
        if let Some(w) = exp.watch() {
            w.tracing = false;
        }
        drop(u);
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

/// The safety check over representatives: the initial state's problems
/// are the system's initial state's.
impl Visit<Quotient<'_>> for () {
    const EDGES: bool = false;
    type Record = ();
    fn initial(&self, q: &Quotient<'_>, _: &[i64]) -> Option<Problem> {
        super::search::check_state(q.model, &q.model.init)
    }
    fn state(&self, _: u32, _: &[i64], _: &mut ()) {}
    fn absorb(&mut self, _: (), _: &Edges, _: &mut Budget) -> Result<(), Halt> {
        Ok(())
    }
    fn bytes(&self) -> u64 {
        0
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
