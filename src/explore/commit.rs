//! The end of a reduced step: thread i's run of invisible transitions after
//! its visible one, and what to do where that run can go on forever (the
//! ignoring problem of seed 003, Levin, Palmer, Qadeer and Rajamani).
//!
//! # Transactions in the Stoller-Cohen reduction
//!
//! A reduced step of thread i is a transaction in the sense of seed 003: the
//! visible transition commits it (there are no right movers here, so nothing
//! comes before it), and the invisible transitions that follow are left
//! movers (hypotheses (14) and (15)). The transaction *completes* in a state
//! where i is at a visible point, has ended, or has no invisible transition
//! enabled (`p_i`): the step's end states, which the search stores and where
//! every thread is scheduled.
//!
//! # Commit points
//!
//! The state right after the visible transition is a commit point (seed 003
//! section 4: the state after the committing action). So is every state
//! after an invisible transition that touches a protected variable: such a
//! transition is a left mover, but the hypotheses ((14), (15)) do not make
//! it a right mover, and seed 003 makes every state after a pure left mover
//! a commit point. A state after a transition that touches only its own
//! thread's locals and program counter is not a commit point: such a
//! transition is a both-mover (no other thread reads what it reads or
//! writes, and its guard reads only locals), and a suffix of both-movers
//! can be postponed past anything other threads do (seed 003's Lemma 5,
//! the optimisation of its line L19).
//!
//! A commit point is *completed* when the run can go from it, through i's
//! invisible transitions, to a state where every thread is scheduled: an end
//! state of the step, or a state where the transaction was ended by force.
//! The run is a depth-first search, so this is decided when a state is
//! popped, as in seed 003's figure 8: a state is completed when it is an
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
//! - [`Ignoring::Cycles`]: seed 003's baseline, cycle detection: where a
//!   transition of the run leads back to a state on the run's stack, the
//!   transaction is ended by force at the state the transition left, unless
//!   the loop already passes through a state where every thread is
//!   scheduled. Every cycle of the run has such a back edge, so no loop is
//!   left without a scheduled state.
//! - [`Ignoring::Forbid`]: a cycle is a violation of WFfiniteInvis, reported
//!   with its lasso (the paper's hypothesis (11) taken literally).
//! - [`Ignoring::Unsound`]: a cycle is cut and nothing is scheduled. This
//!   is the lower bound of seed 003's Table 1, for measurement and teaching
//!   only: it can miss violations (`models/ignoring-fig1.gc`).

use hashbrown::{HashMap, HashSet};

use super::outcome::Problem;
use super::search::Found;
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
    /// Commit point completion (seed 003): end a transaction by force only
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

/// A state met by the current run.
struct Node {
    state: Vec<i64>,
    /// Next transition to try, as an offset into the point's transitions.
    next: usize,
    /// Whether any transition was enabled here.
    moved: bool,
    /// A path to a state where every thread is scheduled is known (for a
    /// finished component: exists).
    completed: bool,
    /// The transaction was ended here by force.
    forced: bool,
    /// A commit point: reached by a transition that is not a both-mover.
    commit: bool,
    /// Tarjan's lowlink: the smallest node reachable through the
    /// unfinished component, by id (ids are in visiting order).
    low: usize,
    /// On Tarjan's stack: its strongly connected component is unfinished.
    open: bool,
    /// Its position on the depth-first path, while it is on it.
    on_path: Option<usize>,
}

/// The depth-first run of one thread's invisible transitions.
pub struct Run {
    ignoring: Ignoring,
    /// State -> node id.
    seen: HashMap<Vec<i64>, usize>,
    nodes: Vec<Node>,
    /// The depth-first path, as node ids.
    dfs: Vec<usize>,
    /// Tarjan's stack of nodes whose component is unfinished.
    open: Vec<usize>,
    out: Vec<i64>,
    /// The distinct states where a transaction was ended by force.
    pub forced: HashSet<Vec<i64>>,
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
    forced: Vec<Vec<i64>>,
    started: Option<(usize, i64)>,
}

impl Run {
    /// A run under the given policy.
    pub fn new(ignoring: Ignoring) -> Run {
        Run {
            ignoring,
            seen: HashMap::new(),
            nodes: Vec::new(),
            dfs: Vec::new(),
            open: Vec::new(),
            out: Vec::new(),
            forced: HashSet::new(),
            starts: std::collections::BTreeSet::new(),
            call: CallLog::default(),
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
        emit: &mut dyn FnMut(&[i64], &[u32]),
    ) -> Result<bool, Found> {
        self.seen.clear();
        self.nodes.clear();
        self.dfs.clear();
        self.open.clear();
        self.call = CallLog::default();
        let mut path = Vec::new();
        let mut start = Vec::new();
        tx.node(s, &mut start);
        self.push(start, true);
        // The start is stored already: completed, and never emitted again.
        let root = &mut self.nodes[0];
        (root.completed, root.forced) = (true, true);
        let mut moved = false;
        while let Some(&v) = self.dfs.last() {
            let node = &mut self.nodes[v];
            let range = model.threads[t].points[node.state[t] as usize]
                .transitions
                .clone();
            let Some(k) = range.clone().nth(node.next) else {
                self.finish(tx, &mut path, emit);
                continue;
            };
            node.next += 1;
            let commit = match tx.fire(t, k, &node.state, &mut self.out) {
                Fired::Disabled => continue,
                Fired::Bad(problem) => {
                    path.push(k as u32);
                    return Err(Found { problem, path });
                }
                Fired::Ends => {
                    node.moved = true;
                    node.completed = true;
                    moved |= v == 0;
                    path.push(k as u32);
                    emit(tx.state(&self.out), &path);
                    path.pop();
                    continue;
                }
                Fired::Continues { commit } => commit,
            };
            node.moved = true;
            moved |= v == 0;
            path.push(k as u32);
            let Some(&w) = self.seen.get(self.out.as_slice()) else {
                let state = self.out.clone();
                self.push(state, commit);
                continue;
            };
            if let Some(depth) = self.nodes[w].on_path {
                self.back_edge(tx, t, depth, &mut path, emit)?;
            }
            path.pop();
            let (low, open, completed) = (
                self.nodes[w].low,
                self.nodes[w].open,
                self.nodes[w].completed,
            );
            let node = &mut self.nodes[v];
            if open {
                // w is in v's unfinished component (Tarjan uses w's id; its
                // lowlink is as good and no smaller than the root's).
                node.low = node.low.min(low);
            } else {
                node.completed |= completed;
            }
        }
        if moved {
            self.call.started = Some((t, s[t]));
        }
        Ok(moved)
    }

    /// Takes what the last call found, to keep it later or not.
    pub fn take_call(&mut self) -> CallLog {
        std::mem::take(&mut self.call)
    }

    /// Counts what a call found: its forced states and where it began.
    pub fn keep(&mut self, log: CallLog) {
        self.forced.extend(log.forced);
        self.starts.extend(log.started);
    }

    /// Visits a new state: a node on the path and on Tarjan's stack.
    fn push(&mut self, state: Vec<i64>, commit: bool) {
        let id = self.nodes.len();
        self.seen.insert(state.clone(), id);
        self.nodes.push(Node {
            state,
            next: 0,
            moved: false,
            completed: false,
            forced: false,
            commit,
            low: id,
            open: true,
            on_path: Some(self.dfs.len()),
        });
        self.dfs.push(id);
        self.open.push(id);
    }

    /// The node on top of the path (the last of `path` leaves it) has a
    /// transition back to the node at `depth` of the path: the run can go
    /// round a loop.
    fn back_edge(
        &mut self,
        tx: &dyn Transaction,
        t: usize,
        depth: usize,
        path: &mut [u32],
        emit: &mut dyn FnMut(&[i64], &[u32]),
    ) -> Result<(), Found> {
        match self.ignoring {
            // The loop: the transitions from path depth `depth` to the top,
            // and the one back; the trace is the stem and the loop.
            Ignoring::Forbid => Err(Found {
                problem: Problem::InvisibleCycle {
                    thread: t,
                    length: path.len() - depth,
                },
                path: path.to_vec(),
            }),
            // A loop through a state where every thread is already
            // scheduled needs nothing more (the stack proviso's usual
            // refinement).
            Ignoring::Cycles if !self.dfs[depth..].iter().any(|&n| self.nodes[n].forced) => {
                let top = *self.dfs.last().expect("non-empty path");
                self.force(tx, top, &path[..path.len() - 1], emit);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Leaves the node on top of the path: ends the transaction there if it
    /// is blocked, and when it closes a strongly connected component,
    /// decides whether the component completes.
    fn finish(
        &mut self,
        tx: &dyn Transaction,
        path: &mut Vec<u32>,
        emit: &mut dyn FnMut(&[i64], &[u32]),
    ) {
        let v = self.dfs.pop().expect("non-empty path");
        let node = &mut self.nodes[v];
        node.on_path = None;
        if !node.moved && !node.forced {
            // No transition enabled: the thread is blocked (`p_i`), and its
            // guards here read only what no other thread changes, so the
            // transaction ends.
            node.completed = true;
            emit(tx.state(&node.state), path);
        }
        if node.low == v {
            self.close(tx, v, path, emit);
        }
        let (low, completed) = (self.nodes[v].low, self.nodes[v].completed);
        if let Some(&parent) = self.dfs.last() {
            let parent = &mut self.nodes[parent];
            parent.low = parent.low.min(low);
            // Within one component this is settled when it closes; from a
            // closed one it is final.
            parent.completed |= completed;
            path.pop();
        }
    }

    /// Closes the strongly connected component rooted at `root` (on top of
    /// the path that `path` leads to). Its states reach one another, so
    /// they complete together: if any completes, all do. If none does and
    /// one is a commit point, the transaction is ended by force at the
    /// root (under CPC); if none is, the states are both-mover suffixes and
    /// the decision falls to the nearest commit point above.
    fn close(
        &mut self,
        tx: &dyn Transaction,
        root: usize,
        path: &[u32],
        emit: &mut dyn FnMut(&[i64], &[u32]),
    ) {
        let at = self
            .open
            .iter()
            .rposition(|&n| n == root)
            .expect("the root is open");
        let members = self.open.split_off(at);
        let mut completed = members.iter().any(|&n| self.nodes[n].completed);
        if !completed
            && self.ignoring == Ignoring::Cpc
            && members.iter().any(|&n| self.nodes[n].commit)
        {
            self.force(tx, root, path, emit);
            completed = true;
        }
        for n in members {
            let node = &mut self.nodes[n];
            node.open = false;
            node.completed = completed;
        }
    }

    /// Ends the transaction by force at node `v`, reached by `path`.
    fn force(
        &mut self,
        tx: &dyn Transaction,
        v: usize,
        path: &[u32],
        emit: &mut dyn FnMut(&[i64], &[u32]),
    ) {
        let node = &mut self.nodes[v];
        node.completed = true;
        if !node.forced {
            node.forced = true;
            let state = tx.state(&node.state);
            emit(state, path);
            self.call.forced.push(state.to_vec());
        }
    }
}
