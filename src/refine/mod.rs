//! Guess, check, refine (digest section 5; paper sections 8 and 9).
//!
//! Start from guesses (the model's own `protected` declarations, or, with
//! `--guess locks`, every shared variable that is neither a lock, a
//! semaphore nor read by a guard, each protected by the lock a lockset pass
//! finds). Check the reduced system. On a discipline violation of x, revise
//! x: the locks held at every access to x on the counterexample narrow its
//! candidate set; x is then protected by a lock still in the set, or, when
//! none is left, unprotected. Repeat until the check holds, another kind of
//! violation appears (a real bug), or the iteration limit. The verdict
//! comes from a plain check of the final guesses.

mod guess;
mod report;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

pub use guess::Guess;
pub use report::{Access, Iteration, Racy, RefineReport};

use guess::{Element, apply, declared_text, describe, splice};

use crate::explore::{
    AccessEvent, Limits, Options, Outcome, Problem, Reduction, StepResult, Verdict, Watch,
    check_watched, step_watched,
};
use crate::model::{Fault, Model, SlotClass, SlotKind};
use crate::syntax::ast;
use crate::{CheckReport, Error, Source};

/// Where the first guesses come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GuessFrom {
    /// The model's own `protected` declarations.
    #[default]
    Annotated,
    /// Locks: every candidate shared variable, protected by the lock a
    /// lockset pass finds.
    Locks,
}

/// Options of [`refine`].
#[derive(Clone, Debug)]
pub struct RefineOptions {
    /// Where the first guesses come from.
    pub guess: GuessFrom,
    /// Most check-and-revise iterations.
    pub max_iterations: usize,
    /// Revise lock guesses during one exploration where that is sound,
    /// restarting only when a variable becomes unprotected.
    pub incremental: bool,
    /// Limits: the states and memory limits apply to each check, the time
    /// limit to the whole run (each check gets what is left of it).
    pub limits: Limits,
    /// The reduced system every check explores: `Sc` or `Movers`.
    pub reduction: Reduction,
}

impl Default for RefineOptions {
    fn default() -> RefineOptions {
        RefineOptions {
            guess: GuessFrom::Annotated,
            max_iterations: 20,
            incremental: false,
            limits: Limits::default(),
            reduction: Default::default(),
        }
    }
}

/// What refinement knows while it runs.
struct State<'a> {
    src: &'a Source,
    mode: GuessFrom,
    /// The model as the user wrote it: traces and accesses are described
    /// with its lines (guesses change declarations only, so transitions and
    /// slots are numbered the same in every recompiled model).
    model0: Model,
    defines: &'a crate::Defines,
    ast: ast::Model,
    elements: Vec<Element>,
    guesses: Vec<Guess>,
    /// Candidate locks per element (None: not narrowed yet).
    candidates: Vec<Option<BTreeSet<String>>>,
    /// Variables with `init` code.
    init_vars: Vec<String>,
    /// Declared predicate text per variable.
    declared: HashMap<String, String>,
    /// Every access seen in any exploration.
    accesses: BTreeSet<AccessEvent>,
    /// States explored over all runs.
    explored: u64,
    /// The limits, and when the run started: every check gets what is left
    /// of the time limit.
    limits: Limits,
    started: Instant,
    /// The reduction every check uses.
    reduction: Reduction,
}

impl State<'_> {
    /// The source text of the model with the current guesses: the user's
    /// file with the changed declarations rewritten.
    fn text(&self) -> String {
        splice(
            &self.src.text,
            &self.ast,
            &apply(&self.ast, &self.elements, &self.guesses, &self.init_vars),
        )
    }

    fn compile(&self) -> Result<(Source, Model), Error> {
        let src = Source::new(self.src.name.clone(), self.text())?;
        let model = crate::compile(&src, self.defines)?;
        Ok((src, model))
    }

    fn describe(&self, e: usize) -> String {
        let el = &self.elements[e];
        describe(
            &self.guesses[e],
            &el.var,
            self.declared.get(&el.var).map_or("", String::as_str),
            self.init_vars.contains(&el.var),
        )
    }

    /// The limits of a check started now.
    fn limits(&self) -> Limits {
        Limits {
            max_time: self
                .limits
                .max_time
                .map(|t| t.saturating_sub(self.started.elapsed())),
            ..self.limits.clone()
        }
    }

    /// Explores the reduced system of `model` under `watch`, which always
    /// records accesses; returns the outcome and the narrowed candidates.
    fn explore(
        &mut self,
        model: &Model,
        mut watch: Watch,
    ) -> (Outcome, Option<BTreeMap<u32, Vec<u32>>>) {
        watch.log = Some(BTreeSet::new());
        let (outcome, watch) =
            check_watched(model, &reduced(self.reduction, &self.limits()), watch);
        self.explored += outcome.stats.states;
        self.accesses.extend(watch.log.unwrap_or_default());
        (outcome, watch.narrowing)
    }
}

impl State<'_> {
    /// `--incremental`: one exploration in which the candidate locks of
    /// every lock-guessed element narrow as accesses are seen. Narrowing
    /// keeps every access seen so far consistent with the narrowed guess and
    /// changes no visibility (lock predicates read only locks, which are
    /// visible anyway), so the exploration goes on; only an element left with
    /// no candidate stops it, since making it unprotected changes visibility.
    fn explore_incremental(&mut self, model: &Model) -> Outcome {
        let slot_of = |name: &str| {
            model
                .slots
                .iter()
                .position(|s| s.name == name)
                .map(|p| p as u32)
        };
        let all: Vec<u32> = locks(model).iter().filter_map(|n| slot_of(n)).collect();
        let mut narrowing = BTreeMap::new();
        for (e, g) in self.guesses.iter().enumerate() {
            if let Guess::Lock(_) = g {
                let c = match &self.candidates[e] {
                    Some(c) => c.iter().filter_map(|n| slot_of(n)).collect(),
                    None => all.clone(),
                };
                narrowing.insert(self.elements[e].slot, c);
            }
        }
        let watch = Watch {
            narrowing: Some(narrowing),
            ..Watch::default()
        };
        let (outcome, narrowed) = self.explore(model, watch);
        for (slot, c) in narrowed.unwrap_or_default() {
            let Some(e) = self.elements.iter().position(|el| el.slot == slot) else {
                continue;
            };
            let names: BTreeSet<String> = c
                .iter()
                .map(|&l| model.slots[l as usize].name.clone())
                .collect();
            if let Some(m) = names.first() {
                self.guesses[e] = Guess::Lock(m.clone());
            }
            self.candidates[e] = Some(names);
        }
        outcome
    }
}

/// Options of a reduced check within limits.
fn reduced(reduction: Reduction, limits: &Limits) -> Options {
    Options {
        reduction,
        limits: limits.clone(),
        ..Options::default()
    }
}

/// Names of the lock slots of a model.
fn locks(model: &Model) -> Vec<String> {
    model
        .slots
        .iter()
        .filter(|s| s.kind == SlotKind::Lock)
        .map(|s| s.name.clone())
        .collect()
}

/// Runs guess, check, refine on a model's source.
pub fn refine(
    src: &Source,
    defines: &crate::Defines,
    options: &RefineOptions,
) -> Result<RefineReport, Error> {
    let begun = Instant::now();
    let ast = crate::parse(src)?;
    let model0 = crate::compile(src, defines)?;
    let (elements, guesses) = initial_guesses(&model0, options.guess);
    let declared = ast
        .vars()
        .map(|d| (d.name.name.clone(), declared_text(d)))
        .collect();
    let started: Vec<bool> = guesses.iter().map(|g| *g != Guess::Unprotected).collect();
    let mut st = State {
        src,
        mode: options.guess,
        init_vars: model0.init_points.keys().cloned().collect(),
        model0,
        defines,
        ast,
        candidates: vec![None; elements.len()],
        elements,
        guesses,
        declared,
        accesses: BTreeSet::new(),
        explored: 0,
        limits: options.limits.clone(),
        started: begun,
        reduction: options.reduction,
    };
    let mut iterations = Vec::new();
    if options.incremental {
        st.start_incremental();
    } else if options.guess == GuessFrom::Locks {
        iterations.push(st.lockset_iteration()?);
    }
    let mut stop = None;
    for n in 1..=options.max_iterations {
        let (iteration, why) = st.iteration(n, options.incremental)?;
        iterations.push(iteration);
        if why.is_some() {
            stop = why;
            break;
        }
    }
    let stop = stop.unwrap_or_else(|| {
        format!(
            "the iteration limit of {} was reached",
            options.max_iterations
        )
    });
    // The verdict comes from a plain check of the final guesses.
    let (_, final_model) = st.compile()?;
    let check_options = reduced(options.reduction, &st.limits());
    let outcome = crate::check(&final_model, &check_options, &mut |_| {});
    let final_check = CheckReport::new(&final_model, &src.name, options.reduction, &outcome);
    Ok(report::build(&st, &started, final_check, iterations, stop))
}

/// The shared elements that may be guessed (neither locals, locks nor
/// semaphores), each with its first guess.
fn initial_guesses(model0: &Model, mode: GuessFrom) -> (Vec<Element>, Vec<Guess>) {
    let guard_read = sync_slots(model0);
    let chans = model0.chan_slots();
    let mut elements = Vec::new();
    let mut guesses = Vec::new();
    for (slot, s) in model0.slots.iter().enumerate() {
        // Channels synchronise, like locks and semaphores: never guessed;
        // nor is `timeout`'s slot, which is no variable.
        if matches!(s.class, SlotClass::Local(_))
            || matches!(s.kind, SlotKind::Lock | SlotKind::Sem)
            || chans[slot] != crate::model::ChanSlot::None
            || model0.timeout == Some(slot as u32)
        {
            continue;
        }
        let var = s.name.split('[').next().unwrap_or_default().to_string();
        let index = s
            .name
            .find('[')
            .and_then(|i| s.name[i + 1..s.name.len() - 1].parse().ok());
        let guess = match (mode, s.class) {
            (GuessFrom::Annotated, SlotClass::Protected) => Guess::Declared,
            (GuessFrom::Annotated, _) => Guess::Unprotected,
            (GuessFrom::Locks, _) if guard_read.contains(&(slot as u32)) => Guess::Unprotected,
            // Placeholder until the lockset pass names the lock: any lock
            // gives the same visibility, since lock operations are visible.
            (GuessFrom::Locks, _) => locks(model0)
                .first()
                .map_or(Guess::Unprotected, |m| Guess::Lock(m.clone())),
        };
        elements.push(Element {
            name: s.name.clone(),
            var,
            index,
            slot: slot as u32,
        });
        guesses.push(guess);
    }
    (elements, guesses)
}

/// Slots read by guards are synchronisation variables, never candidates.
/// Nor are slots read by invariants: every write of one is visible to the
/// reduction whatever it is protected by, so a guess gains nothing there.
fn sync_slots(model0: &Model) -> BTreeSet<u32> {
    let mut guard_read = BTreeSet::new();
    for tr in &model0.transitions {
        if let Some(g) = &tr.guard {
            g.for_each_slot(&mut |s| {
                guard_read.insert(s);
            });
        }
    }
    for inv in &model0.invariants {
        inv.expr.for_each_slot(&mut |s| {
            guard_read.insert(s);
        });
    }
    guard_read
}

impl State<'_> {
    /// `--incremental`: the first exploration narrows every candidate from
    /// all locks.
    fn start_incremental(&mut self) {
        let all: BTreeSet<String> = locks(&self.model0).into_iter().collect();
        for (e, g) in self.guesses.iter().enumerate() {
            if matches!(g, Guess::Lock(_)) {
                self.candidates[e] = Some(all.clone());
            }
        }
    }

    /// `--guess locks`: iteration 0, an exploration that enforces nothing
    /// and guesses from the locks held at every access.
    fn lockset_iteration(&mut self) -> Result<Iteration, Error> {
        let (_, model) = self.compile()?;
        let (outcome, _) = self.explore(
            &model,
            Watch {
                enforce: false,
                ..Watch::default()
            },
        );
        let changed = lockset_pass(self, &model);
        let mut reason =
            "lockset pass: the locks held at every access to each variable in the reduced system"
                .to_string();
        if let Verdict::Inconclusive(l) = outcome.verdict {
            // The guesses are still checked; they come from fewer accesses.
            reason.push_str(&format!(
                " (stopped early, {l}: from the accesses seen until then)"
            ));
        }
        Ok(Iteration {
            iteration: 0,
            changed,
            reason,
            states: outcome.stats.states,
        })
    }

    /// Iteration `n`: checks the current guesses and revises the one a
    /// violation refutes. Returns the iteration and, where the loop ends
    /// here, why.
    fn iteration(
        &mut self,
        n: usize,
        incremental: bool,
    ) -> Result<(Iteration, Option<String>), Error> {
        let (_, model) = self.compile()?;
        let before: Vec<String> = (0..self.elements.len()).map(|e| self.describe(e)).collect();
        let outcome = if incremental {
            self.explore_incremental(&model)
        } else {
            self.explore(&model, Watch::default()).0
        };
        let Some(v) = &outcome.violation else {
            let narrowed: Vec<String> = (0..self.elements.len())
                .filter(|&e| self.describe(e) != before[e])
                .map(|e| {
                    format!(
                        "{}: {} -> {}",
                        self.elements[e].name,
                        before[e],
                        self.describe(e)
                    )
                })
                .collect();
            let (reason, why) = match outcome.verdict {
                Verdict::Inconclusive(l) => (
                    format!("the reduced check stopped: {l}"),
                    format!("a limit was hit ({l}) in iteration {n}"),
                ),
                // A rendezvous or `timeout`: no guess changes that.
                Verdict::DoesNotApply(why) => (why.to_string(), why.to_string()),
                _ => (
                    "the reduced check holds".to_string(),
                    "the guesses check".to_string(),
                ),
            };
            let iteration = Iteration {
                iteration: n,
                changed: if narrowed.is_empty() {
                    "nothing".into()
                } else {
                    narrowed.join("; ")
                },
                reason,
                states: outcome.stats.states,
            };
            return Ok((iteration, Some(why)));
        };
        let Some(e) = offending(self, &model, &v.problem) else {
            // "an assertion violation", "a range violation".
            let kind = v.kind().name();
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            let iteration = Iteration {
                iteration: n,
                changed: "nothing".into(),
                reason: format!(
                    "{article} {kind} violation, which no guess explains: {}",
                    crate::report::describe(&self.model0, v).message
                ),
                states: outcome.stats.states,
            };
            let why = format!("{article} {kind} violation: a real bug, not a wrong guess");
            return Ok((iteration, Some(why)));
        };
        let (changed, reason) = revise(self, e, v);
        let iteration = Iteration {
            iteration: n,
            changed,
            reason,
            states: outcome.stats.states,
        };
        Ok((iteration, None))
    }
}

/// The element whose guess a discipline violation refutes, if it is one.
fn offending(st: &State, model: &Model, problem: &Problem) -> Option<usize> {
    let slot = match problem {
        Problem::Fault(Fault::Discipline { slot, .. }) => *slot,
        Problem::Overlap { protected, .. } => model.protected[*protected].slot,
        // WFendExcl means a predicate is wrong too.
        Problem::EndExcl { protected, .. } => model.protected[*protected].slot,
        _ => return None,
    };
    st.elements.iter().position(|e| e.slot == slot)
}

/// Lock names held (as a set of names) at an access.
fn held(model: &Model, a: &AccessEvent) -> BTreeSet<String> {
    a.held
        .iter()
        .map(|&l| model.slots[l as usize].name.clone())
        .collect()
}

/// Sets every candidate's lock from the accesses recorded by a lockset pass.
fn lockset_pass(st: &mut State, model: &Model) -> String {
    let mut changes = Vec::new();
    for e in 0..st.elements.len() {
        if st.guesses[e] == Guess::Unprotected {
            continue;
        }
        let slot = st.elements[e].slot;
        let accesses = st.accesses.iter().filter(|a| a.slot == slot && !a.init);
        let common =
            narrow(model, None, accesses).unwrap_or_else(|| locks(model).into_iter().collect());
        st.guesses[e] = common
            .first()
            .map_or(Guess::Unprotected, |m| Guess::Lock(m.clone()));
        st.candidates[e] = Some(common);
        changes.push(format!("{}: {}", st.elements[e].name, st.describe(e)));
    }
    changes.join("; ")
}

/// Revises the guess of element `e` from a counterexample: the locks held at
/// every access to it on the path narrow its candidates.
fn revise(st: &mut State, e: usize, v: &crate::Violation) -> (String, String) {
    let name = st.elements[e].name.clone();
    let path: Vec<u32> = v.trace.iter().map(|s| s.transition as u32).collect();
    let on_path: Vec<AccessEvent> = path_accesses(&st.model0, &path)
        .into_iter()
        .filter(|a| a.slot == st.elements[e].slot && !a.init)
        .collect();
    let common = narrow(&st.model0, st.candidates[e].clone(), on_path.iter()).unwrap_or_default();
    let culprit = on_path.last().map_or_else(
        || "an exclusive access predicate failed".to_string(),
        |a| Access::new(&st.model0, a).text(Some(&name)),
    );
    let before = st.describe(e);
    let mut next = common
        .first()
        .map_or(Guess::Unprotected, |m| Guess::Lock(m.clone()));
    if next == st.guesses[e] {
        // The guess was refuted, so it cannot stay.
        next = Guess::Unprotected;
    }
    st.guesses[e] = next;
    st.candidates[e] = Some(common);
    let after = st.describe(e);
    (
        format!("{name}: {before} -> {after}"),
        format!(
            "{culprit} (counterexample of {} transitions, kind {})",
            v.trace.len(),
            v.kind().name()
        ),
    )
}

/// `common` narrowed to the locks held at every one of `accesses`.
fn narrow<'a>(
    model: &Model,
    mut common: Option<BTreeSet<String>>,
    accesses: impl Iterator<Item = &'a AccessEvent>,
) -> Option<BTreeSet<String>> {
    for a in accesses {
        let h = held(model, a);
        common = Some(match common {
            None => h,
            Some(c) => c.intersection(&h).cloned().collect(),
        });
    }
    common
}

/// The accesses made along a path of transitions from the initial state.
fn path_accesses(model: &Model, path: &[u32]) -> Vec<AccessEvent> {
    let mut s = model.init.clone();
    let mut out = Vec::new();
    let mut events = Vec::new();
    for &k in path {
        let mut watch = Watch {
            log: Some(BTreeSet::new()),
            enforce: false,
            narrowing: None,
            tracing: false,
        };
        let result = step_watched(model, k as usize, &s, &mut out, &mut watch);
        events.extend(watch.log.unwrap_or_default());
        if matches!(result, StepResult::Ok) {
            s.clone_from(&out);
        }
    }
    events
}
