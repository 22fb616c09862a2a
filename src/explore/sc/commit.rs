//! The end of a reduced step: thread i's run of invisible transitions after
//! its visible one, and what to do where that run can go on forever (the
//! ignoring problem of Levin, Palmer, Qadeer and Rajamani, 2005).
//!
//! # Transactions in the Stoller-Cohen reduction
//!
//! A reduced step of thread i is a transaction in the sense of Levin, Palmer, Qadeer and Rajamani: the
//! visible transition commits it (there are no right movers here, so nothing
//! comes before it), and the invisible transitions that follow are left
//! movers (hypotheses (14) and (15)). The transaction *completes* in a state
//! where i is at a visible point, has ended, or has no invisible transition
//! enabled (`p_i`): the step's end states, which the search stores and where
//! every thread is scheduled.
//!
//! # Commit points
//!
//! The state right after the visible transition is a commit point (Levin, Palmer, Qadeer and Rajamani
//! section 4: the state after the committing action). So is every state
//! after an invisible transition that touches a protected variable: such a
//! transition is a left mover, but the hypotheses ((14), (15)) do not make
//! it a right mover, and Levin, Palmer, Qadeer and Rajamani makes every state after a pure left mover
//! a commit point. A state after a transition that touches only its own
//! thread's locals and program counter is not a commit point: such a
//! transition is a both-mover (no other thread reads what it reads or
//! writes, and its guard reads only locals), and a suffix of both-movers
//! can be postponed past anything other threads do (Levin, Palmer, Qadeer and Rajamani's Lemma 5,
//! the optimisation of its line L19).
//!
//! A commit point is *completed* when the run can go from it, through i's
//! invisible transitions, to a state where every thread is scheduled: an end
//! state of the step, or a state where the transaction was ended by force.
//! The run is a depth-first search, so this is decided when a state is
//! popped, as in Levin, Palmer, Qadeer and Rajamani's figure 8: a state is completed when it is an
//! end state, or one of its successors is completed (a successor still on
//! the stack counts as not completed yet, which is the conservative
//! choice). A state popped without being completed is a commit point that
//! cannot complete: if it is a commit point, the transaction is ended
//! there by force; if not, its parent is not completed either, and the
//! decision moves up to the nearest commit point. A forced state is
//! emitted as a successor of the step, so the search stores it and
//! schedules every thread from it, i included (i resumes its run from
//! there; see [`Run::explore`]). That makes its predecessors on the stack
//! completed in turn, so one forced state serves a whole strongly connected
//! loop and everything that can only reach it.
//!
//! Why this is sound: any interleaving in which another thread moves while
//! i is inside its run can be reordered, moving i's later invisible
//! transitions to the left (they are left movers), until i reaches a state
//! where every thread is scheduled; every state of the run reaches one, so
//! the other thread's moves are explored from there. When every run ends by
//! itself (WFfiniteInvis), no state is forced and the reduced system is
//! exactly the paper's `N`.
//!
//! # The policies
//!
//! - [`Ignoring::Cpc`]: commit point completion, as above.
//! - [`Ignoring::Cycles`]: Levin, Palmer, Qadeer and Rajamani's baseline, cycle detection: where a
//!   transition of the run leads back to a state on the run's stack, the
//!   transaction is ended by force at the state the transition left, unless
//!   the loop already passes through a state where every thread is
//!   scheduled. Every cycle of the run has such a back edge, so no loop is
//!   left without a scheduled state.
//! - [`Ignoring::Forbid`]: a cycle is a violation of WFfiniteInvis, reported
//!   with its lasso (the paper's hypothesis (11) taken literally).
//! - [`Ignoring::Unsound`]: a cycle is cut and nothing is scheduled. This
//!   is the lower bound of Levin, Palmer, Qadeer and Rajamani's Table 1, for measurement and teaching
//!   only: it can miss violations (`models/ignoring-fig1.gc`).

use crate::explore::budget::{Budget, Halt, reserve_one};
use crate::explore::outcome::Problem;
use crate::explore::search::{Emit, Found, Stop};
use crate::explore::store::{Insert, Room, Store};
use crate::model::Model;

/// What one thread's transactions are made of: the reduction's side of a
/// run. Stoller-Cohen's steps and Flanagan-Qadeer's mover transactions
/// differ only here.
pub trait Transaction {
    /// The run's node for stored state `s` (the state, plus whatever the
    /// reduction keeps per transaction, such as a phase bit).
    fn node(&self, s: &[i64], out: &mut Vec<i64>);
    /// The stored state of a node.
    fn state<'a>(&self, node: &'a [i64]) -> &'a [i64];
    /// Fires transition `k` of thread `t` from node `from` into `out`, with
    /// every check of the semantics.
    fn fire(&mut self, t: usize, k: usize, from: &[i64], out: &mut Vec<i64>) -> Fired;
    /// Whether firing transition `k` from node `from` would give
    /// [`Fired::Disabled`] and do nothing else (its guard is false). False
    /// when unsure, or when firing a disabled transition does more (a
    /// stubborn set records what the guard read).
    fn disabled(&self, k: usize, from: &[i64]) -> bool {
        let _ = (k, from);
        false
    }
}

/// What firing a transition inside a transaction gave.
pub enum Fired {
    /// The guard is false.
    Disabled,
    /// A violation.
    Bad(Problem),
    /// The transaction completes in `out`: it is a stored state.
    Ends,
    /// The transaction goes on from `out`, which is a commit point when
    /// `commit` (see the module docs).
    Continues {
        /// The transition is not a both-mover.
        commit: bool,
    },
}

/// What a reduced step does where a run of invisible transitions can go on
/// forever.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ignoring {
    /// Commit point completion (2005): end a transaction by force only
    /// at a commit point from which it cannot complete.
    #[default]
    Cpc,
    /// Cycle detection: end a transaction by force where its run closes a
    /// cycle.
    Cycles,
    /// Report an infinite invisible run as a WFfiniteInvis violation.
    Forbid,
    /// Cut cycles and schedule nothing: unsound, a lower bound on states.
    Unsound,
}

impl Ignoring {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Ignoring::Cpc => "cpc",
            Ignoring::Cycles => "cycles",
            Ignoring::Forbid => "forbid",
            Ignoring::Unsound => "unsound",
        }
    }
}

/// What the run knows of a state it met. The state's values are in the
/// run's store, under the same id (ids are in visiting order).
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Next transition to try, as an offset into the point's transitions.
    next: u32,
    /// Tarjan's lowlink: the smallest node reachable through the
    /// unfinished component, by id.
    low: u32,
    /// Its position on the depth-first path, while it is on it
    /// ([`OFF_PATH`] otherwise).
    on_path: u32,
    /// Whether any transition was enabled here.
    moved: bool,
    /// A path to a state where every thread is scheduled is known (for a
    /// finished component: exists).
    completed: bool,
    /// The transaction was ended here by force.
    forced: bool,
    /// A commit point: reached by a transition that is not a both-mover.
    commit: bool,
    /// On Tarjan's stack: its strongly connected component is unfinished.
    open: bool,
}

/// `Node::on_path` of a node that is not on the path.
const OFF_PATH: u32 = u32::MAX;

/// The depth-first run of one thread's invisible transitions.
///
/// A run can be very long (a thread-local loop through 10^9 states), so it
/// answers to the run's limits like the search itself: each transition
/// tried is a unit of work for the clock; each state it keeps counts
/// against the state limit, with the stored states (the intermediate states
/// of the step under way are held at once, to find cycles and components);
/// and its store, stacks and path grow only within the memory budget. Its
/// states are kept packed and its stacks name them by 32-bit ids, so a long
/// run costs a few dozen bytes per state.
pub struct Run {
    ignoring: Ignoring,
    /// The nodes met by the current run, packed (the state, then any value
    /// the reduction adds to a node, one word each), with their bookkeeping
    /// as notes. Kept between runs, so its memory is allocated once.
    nodes: Store<Node>,
    /// Words of a packed node.
    words: usize,
    /// The depth-first path, as node ids.
    dfs: Vec<u32>,
    /// Tarjan's stack of nodes whose component is unfinished.
    open: Vec<u32>,
    /// The transitions from the stored state to the top of the path.
    path: Vec<u32>,
    /// Bytes of `dfs`, `open` and `path`.
    vec_bytes: u64,
    /// The node on top of the path, unpacked.
    cur: Vec<i64>,
    out: Vec<i64>,
    scratch: Vec<i64>,
    packed: Vec<u64>,
    /// The distinct states where a transaction was ended by force, packed.
    pub forced: Store<u8>,
    /// Words of a packed state in `forced`.
    forced_words: usize,
    /// The control points `(thread, point)` where a transaction began:
    /// the boundaries that cut each thread's code into transactions.
    pub starts: std::collections::BTreeSet<(usize, i64)>,
    /// What the last call found, until it is kept.
    call: CallLog,
}

/// What one call of [`Run::explore`] found beside its successors: kept
/// (counted) only when its successors are used.
#[derive(Default)]
pub struct CallLog {
    /// The forced states, packed.
    forced: Vec<Vec<u64>>,
    started: Option<(usize, i64)>,
}

impl Run {
    /// A run under the given policy.
    pub fn new(ignoring: Ignoring) -> Run {
        Run {
            ignoring,
            nodes: Store::indexed(1),
            // No node has zero words: the first run sets the store up.
            words: 0,
            dfs: Vec::new(),
            open: Vec::new(),
            path: Vec::new(),
            vec_bytes: 0,
            cur: Vec::new(),
            out: Vec::new(),
            scratch: Vec::new(),
            packed: Vec::new(),
            forced: Store::new(1),
            forced_words: 0,
            starts: std::collections::BTreeSet::new(),
            call: CallLog::default(),
        }
    }

    /// Moves the starts and the forced states kept so far into `out`.
    pub fn take_findings(&mut self, out: &mut crate::explore::search::Findings) {
        out.starts.extend(std::mem::take(&mut self.starts));
        for id in 0..self.forced.len() as u32 {
            out.forced.extend_from_slice(self.forced.get(id));
        }
        self.forced.clear();
    }

    /// Takes what the last call found, to keep it later or not.
    pub fn take_call(&mut self) -> CallLog {
        std::mem::take(&mut self.call)
    }

    /// Counts what a call found: its forced states (a set kept within the
    /// memory budget) and where it began.
    pub fn keep(&mut self, log: CallLog, budget: &mut Budget) -> Result<(), Halt> {
        self.starts.extend(log.started);
        for packed in &log.forced {
            // A forced state is stored by the search too: it holds no state
            // more, only the bytes of this set.
            let room = Room {
                states: u64::MAX,
                bytes: budget.room().bytes,
            };
            if let Err(full) = self.forced.insert(packed, 0, || room) {
                return Err(budget.full(full));
            }
            budget.exp_bytes = self.bytes();
        }
        Ok(())
    }

    /// Bytes held by the run's structures.
    fn bytes(&self) -> u64 {
        self.nodes.bytes() + self.forced.bytes() + self.vec_bytes
    }

    /// Packs a node: the state by the model's layout, then each value the
    /// reduction adds, one word each.
    fn pack(model: &Model, node: &[i64], out: &mut [u64]) {
        let (slots, words) = (model.slots.len(), model.layout.words());
        model.layout.pack(&node[..slots], &mut out[..words]);
        for (w, &x) in out[words..].iter_mut().zip(&node[slots..]) {
            *w = x as u64;
        }
    }

    /// Unpacks node `id` into `out` (of a node's length).
    fn unpack(model: &Model, nodes: &Store<Node>, id: u32, out: &mut [i64]) {
        let (slots, words) = (model.slots.len(), model.layout.words());
        let w = nodes.get(id);
        model.layout.unpack(&w[..words], &mut out[..slots]);
        for (x, &v) in out[slots..].iter_mut().zip(&w[words..]) {
            *x = v as i64;
        }
    }

    /// Runs thread `t`'s transaction from stored state `s`, where every
    /// thread is scheduled: a new transaction if `t` is between two, or the
    /// rest of one that was ended by force at `s`. Emits every state where
    /// the transaction ends, by itself or by force, and returns whether any
    /// transition of `t` was enabled at `s`.
    pub fn explore(
        &mut self,
        model: &Model,
        tx: &mut dyn Transaction,
        t: usize,
        s: &[i64],
        budget: &mut Budget,
        emit: &mut Emit,
    ) -> Result<bool, Stop> {
        budget.run_thread = t;
        self.call = CallLog::default();
        self.dfs.clear();
        self.open.clear();
        self.path.clear();
        tx.node(s, &mut self.out);
        let words = model.layout.words() + self.out.len().saturating_sub(model.slots.len());
        if words != self.words {
            self.words = words;
            self.nodes = Store::indexed(words);
            self.packed = vec![0; words];
            budget.exp_bytes = self.bytes();
        }
        if self.forced_words != model.layout.words() {
            self.forced_words = model.layout.words();
            self.forced = Store::new(self.forced_words);
        }
        // A thread with nothing enabled here (waiting for a lock, most
        // often) has no transaction: the run stores no node for it.
        let range = model.threads[t].points[s[t] as usize].transitions.clone();
        let moved = if range.clone().all(|k| tx.disabled(k, &self.out)) {
            budget.tick()?;
            false
        } else {
            self.transaction(model, tx, t, budget, emit)?
        };
        if moved {
            self.call.started = Some((t, s[t]));
        }
        budget.run_states = 0;
        Ok(moved)
    }

    /// The depth-first search of thread `t`'s transaction from the node
    /// [`Run::explore`] set up; whether its first transition moved.
    fn transaction(
        &mut self,
        model: &Model,
        tx: &mut dyn Transaction,
        t: usize,
        budget: &mut Budget,
        emit: &mut Emit,
    ) -> Result<bool, Stop> {
        self.nodes.clear();
        // The start is stored already: completed, and never emitted again.
        self.enter(model, true, true, budget)?;
        let root = self.nodes.note_mut(0);
        (root.completed, root.forced) = (true, true);
        let mut moved = false;
        while let Some(&v) = self.dfs.last() {
            let range = model.threads[t].points[self.cur[t] as usize]
                .transitions
                .clone();
            let k = range.start + self.nodes.note(v).next as usize;
            if k >= range.end {
                self.finish(model, tx, budget, emit)?;
                continue;
            }
            self.nodes.note_mut(v).next += 1;
            budget.tick()?;
            let commit = match tx.fire(t, k, &self.cur, &mut self.out) {
                Fired::Disabled => continue,
                Fired::Bad(problem) => {
                    self.path.push(k as u32);
                    let path = self.path.clone();
                    return Err(Stop::Found(Found { problem, path }));
                }
                Fired::Ends => {
                    let node = self.nodes.note_mut(v);
                    node.moved = true;
                    node.completed = true;
                    moved |= v == 0;
                    self.push_path(k, budget)?;
                    emit(tx.state(&self.out), &self.path, budget)?;
                    self.path.pop();
                    continue;
                }
                Fired::Continues { commit } => commit,
            };
            self.nodes.note_mut(v).moved = true;
            moved |= v == 0;
            self.push_path(k, budget)?;
            let Some(w) = self.enter(model, commit, false, budget)? else {
                continue;
            };
            let depth = self.nodes.note(w).on_path;
            if depth != OFF_PATH {
                self.back_edge(model, tx, t, depth as usize, budget, emit)?;
            }
            self.path.pop();
            let seen = self.nodes.note(w);
            let node = self.nodes.note_mut(v);
            if seen.open {
                // w is in v's unfinished component (Tarjan uses w's id; its
                // lowlink is as good and no smaller than the root's).
                node.low = node.low.min(seen.low);
            } else {
                node.completed |= seen.completed;
            }
        }
        Ok(moved)
    }

    /// Appends `k` to the path, within the budget.
    fn push_path(&mut self, k: usize, budget: &mut Budget) -> Result<(), Stop> {
        reserve_one(&mut self.path, budget, &mut self.vec_bytes)?;
        budget.exp_bytes = self.bytes();
        self.path.push(k as u32);
        Ok(())
    }

    /// Visits the node in `out`: a new one goes on the path and on Tarjan's
    /// stack, and becomes the top (`cur`); a node met before is returned.
    /// The `root`, the stored state the run starts from, is no state more
    /// for the state limit.
    fn enter(
        &mut self,
        model: &Model,
        commit: bool,
        root: bool,
        budget: &mut Budget,
    ) -> Result<Option<u32>, Stop> {
        Run::pack(model, &self.out, &mut self.packed);
        let id = self.nodes.len() as u32;
        let node = Node {
            next: 0,
            low: id,
            on_path: self.dfs.len() as u32,
            moved: false,
            completed: false,
            forced: false,
            commit,
            open: true,
        };
        let room = || {
            let room = budget.room();
            Room {
                states: if root { u64::MAX } else { room.states },
                ..room
            }
        };
        match self.nodes.insert(&self.packed, node, room) {
            Ok(Insert::New(_)) => {}
            Ok(Insert::Old(Some(w))) => return Ok(Some(w)),
            // An indexed store always names the node; were it not to, the
            // node is known, and treated as finished and completed.
            Ok(Insert::Old(None)) => return Ok(None),
            Err(full) => return Err(budget.full(full).into()),
        }
        // The stored state the run starts from is not an intermediate one.
        budget.run_states = self.nodes.len() as u64 - 1;
        budget.exp_bytes = self.bytes();
        reserve_one(&mut self.dfs, budget, &mut self.vec_bytes)?;
        budget.exp_bytes = self.bytes();
        reserve_one(&mut self.open, budget, &mut self.vec_bytes)?;
        budget.exp_bytes = self.bytes();
        self.dfs.push(id);
        self.open.push(id);
        std::mem::swap(&mut self.cur, &mut self.out);
        Ok(None)
    }

    /// The node on top of the path (the last of `path` leaves it) has a
    /// transition back to the node at `depth` of the path: the run can go
    /// round a loop.
    fn back_edge(
        &mut self,
        model: &Model,
        tx: &dyn Transaction,
        t: usize,
        depth: usize,
        budget: &mut Budget,
        emit: &mut Emit,
    ) -> Result<(), Stop> {
        match self.ignoring {
            // The loop: the transitions from path depth `depth` to the top,
            // and the one back; the trace is the stem and the loop.
            Ignoring::Forbid => Err(Stop::Found(Found {
                problem: Problem::InvisibleCycle {
                    thread: t,
                    length: self.path.len() - depth,
                },
                path: self.path.clone(),
            })),
            // A loop through a state where every thread is already
            // scheduled needs nothing more (the stack proviso's usual
            // refinement).
            Ignoring::Cycles if !self.dfs[depth..].iter().any(|&n| self.nodes.note(n).forced) => {
                let Some(&top) = self.dfs.last() else {
                    return Ok(());
                };
                let len = self.path.len() - 1;
                self.force(model, tx, top, len, budget, emit)
            }
            _ => Ok(()),
        }
    }

    /// Leaves the node on top of the path: ends the transaction there if it
    /// is blocked, and when it closes a strongly connected component,
    /// decides whether the component completes.
    fn finish(
        &mut self,
        model: &Model,
        tx: &dyn Transaction,
        budget: &mut Budget,
        emit: &mut Emit,
    ) -> Result<(), Stop> {
        let Some(v) = self.dfs.pop() else {
            return Ok(());
        };
        let node = self.nodes.note_mut(v);
        node.on_path = OFF_PATH;
        if !node.moved && !node.forced {
            // No transition enabled: the thread is blocked (`p_i`), and its
            // guards here read only what no other thread changes, so the
            // transaction ends.
            node.completed = true;
            emit(tx.state(&self.cur), &self.path, budget)?;
        }
        if self.nodes.note(v).low == v {
            self.close(model, tx, v, budget, emit)?;
        }
        let Node { low, completed, .. } = self.nodes.note(v);
        if let Some(&parent) = self.dfs.last() {
            let parent_node = self.nodes.note_mut(parent);
            parent_node.low = parent_node.low.min(low);
            // Within one component this is settled when it closes; from a
            // closed one it is final.
            parent_node.completed |= completed;
            self.path.pop();
            Run::unpack(model, &self.nodes, parent, &mut self.cur);
        }
        Ok(())
    }

    /// Closes the strongly connected component rooted at `root` (on top of
    /// the path that `path` leads to). Its states reach one another, so
    /// they complete together: if any completes, all do. If none does and
    /// one is a commit point, the transaction is ended by force at the
    /// root (under CPC); if none is, the states are both-mover suffixes and
    /// the decision falls to the nearest commit point above.
    fn close(
        &mut self,
        model: &Model,
        tx: &dyn Transaction,
        root: u32,
        budget: &mut Budget,
        emit: &mut Emit,
    ) -> Result<(), Stop> {
        // The root is open.
        let Some(at) = self.open.iter().rposition(|&n| n == root) else {
            return Ok(());
        };
        let members = &self.open[at..];
        let mut completed = members.iter().any(|&n| self.nodes.note(n).completed);
        if !completed
            && self.ignoring == Ignoring::Cpc
            && members.iter().any(|&n| self.nodes.note(n).commit)
        {
            let len = self.path.len();
            self.force(model, tx, root, len, budget, emit)?;
            completed = true;
        }
        for i in at..self.open.len() {
            let node = self.nodes.note_mut(self.open[i]);
            node.open = false;
            node.completed = completed;
        }
        self.open.truncate(at);
        Ok(())
    }

    /// Ends the transaction by force at node `v`, reached by the first
    /// `len` transitions of the path.
    fn force(
        &mut self,
        model: &Model,
        tx: &dyn Transaction,
        v: u32,
        len: usize,
        budget: &mut Budget,
        emit: &mut Emit,
    ) -> Result<(), Stop> {
        let node = self.nodes.note_mut(v);
        node.completed = true;
        if node.forced {
            return Ok(());
        }
        node.forced = true;
        self.scratch.resize(self.cur.len(), 0);
        Run::unpack(model, &self.nodes, v, &mut self.scratch);
        let state = tx.state(&self.scratch);
        emit(state, &self.path[..len], budget)?;
        let mut packed = vec![0; model.layout.words()];
        model.layout.pack(state, &mut packed);
        self.call.forced.push(packed);
        Ok(())
    }
}
