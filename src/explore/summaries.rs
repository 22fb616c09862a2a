//! `--summaries`: the two-level algorithm of Qadeer, Rajamani and Rehof
//! (2004, sections 4 and 5) on the Stoller-Cohen transactions or on
//! the mover transactions of Flanagan and Qadeer ([`Stepper`]).
//!
//! # The two levels
//!
//! The search (level I) stores states with their call stacks, as in every
//! other mode: a thread's frames are the copies of its procedures (see
//! [`crate::Frame`]). A thread's transaction from a stored state is not run
//! transition by transition as [`super::reduced`] runs it, but read off
//! *summaries* (level II), computed once and reused across call sites.
//!
//! A summary is keyed by a node without a stack (Qadeer, Rajamani and Rehof's `(g, ℓ)`): the
//! state with every frame of the thread below the top one, and every return
//! point, put back to its initial value, and the top frame moved to the
//! shallowest copy of its procedure. Nothing reads what this forgets but the
//! return transitions (a procedure sees only its own frame, and `at(t, L)`
//! reads the program counter only), so a summary holds for every stack under
//! its node. Other threads' program counters and locals are forgotten too
//! when neither the thread's transitions nor the checks of a state (the
//! invariants and the exclusive access predicates) read them: they do not
//! change during the thread's transaction, and nothing it does depends on
//! them, so the summary holds whatever the other threads are doing.
//!
//! Every step the search takes is replayed in the thread's real frames,
//! for the trace and the count of original transitions. A summary runs a
//! callee in the shallowest copies, so a step may need a deeper stack than
//! `--max-stack` where it is used: then the run ends at the stack bound. The key also says whether the node is the start of a
//! transaction (a stored state) or a commit point (Qadeer, Rajamani and Rehof's phase bit:
//! whether the transaction had committed when it got there).
//!
//! A summary is the set of path edges from its node through the same frame
//! (rule CFL STEP), with three kinds of summary edges:
//!
//! - **ends** (`Sum`): the transaction ends in this frame: at a visible
//!   point, blocked, or ended by force (below).
//! - **returns** (`Sum⁻`): the frame reaches a return point. The caller
//!   takes the return itself, with its own frame: inside a summary (rule CFL
//!   POP, the path edge continues after the call) or in the search, with the
//!   real stack (rule POP).
//! - **calls** (`Sum⁺`): a call whose callee's summary ends inside it
//!   (`Mark`): the search takes the call itself and goes on with the
//!   callee's summary (rule PUSH).
//!
//! A call inside a summary starts (or reuses) the callee's summary at its
//! entry node (rule CFL PUSH). A recursive call whose entry node is one
//! already being summarized adds no node: that is how recursion inside a
//! transaction terminates here, where plain exploration grows the stack
//! until `--max-stack`.
//!
//! # Transactions that cannot complete
//!
//! Commit point completion (2005, [`super::commit`]) over the summary
//! graph: a commit point from which the thread cannot reach an end (in its
//! frame or deeper) or a return ends the transaction by force, and every
//! thread is scheduled there. After a return the caller's node counts as a
//! commit point, because the callee's path to its return may have committed
//! and its summary cannot know whether the caller completes (Qadeer, Rajamani and Rehof's
//! condition C3'). Ending a transaction early is always sound; a
//! transaction that never committed and cannot complete (figure 4's endless
//! recursion) is dropped, as uncommitted right movers may be.
//!
//! # Threads that share summaries
//!
//! A thread whose code is another's up to their identity, as a whole or in
//! one procedure, uses that thread's summaries there ([`Shares`],
//! [`crate::model::Swaps`]): its node is carried into the other's terms to
//! look the summary up, and the summary's nodes are carried back where the
//! search, or a caller's summary, uses them; a caller always takes its
//! own return. Paths are offsets into the transitions of a point that are
//! not returns, which matched points and the copies of a procedure list in
//! the same order, and returns by which enabled one ([`ret`]), so they
//! replay in the thread's own frames unchanged. A
//! violation met in another thread's summary is searched for again in the
//! thread's own terms (its details name threads and slots).
//!
//! # The classification
//!
//! Summaries are shared by every copy of a procedure, so a point is visible
//! in all copies if it is visible in one (copies differ only in where their
//! returns go). Making a point visible only ends transactions earlier.

use hashbrown::HashMap;

use super::budget::{Budget, Halt};
use super::commit::{Fired, Transaction};
use super::outcome::Problem;
use super::reduced::Steps;
use super::search::{Emit, Expand, Found, StepResult, Stop, Watch, step};
use crate::classify::Classification;
use crate::model::{Model, StackOp, Swap, Swaps};

/// What `--summaries` computed and reused in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SummaryStats {
    /// Summaries: distinct nodes a transaction (or the part of one in a
    /// callee) started from.
    pub entries: u64,
    /// Summary edges computed: ends, returns and calls that end inside.
    pub computed: u64,
    /// Summary edges reused: those of a summary computed earlier, each time
    /// a call or a stored state found it instead of exploring again.
    pub reused: u64,
    /// Commit points where a transaction was ended by force.
    pub forced: u64,
    /// Threads that use the summaries of another, interchangeable one.
    pub shared: u64,
}

/// A path step inside a summary, relative to the point it leaves: the
/// offset of the transition among the point's transitions that are not
/// returns, or a return ([`ret`]). Copies of a procedure at other depths
/// have other call sites, so other returns, but the same other
/// transitions in the same order: offsets that skip the returns name the
/// same statement in every copy.
const RET: u32 = u32::MAX;

/// The `j`-th return enabled at a point, as a path step: a point has one
/// return per `return` statement there (an `either` may have several) and
/// call site, and exactly one per statement is enabled, in their order.
fn ret(j: usize) -> u32 {
    RET - j as u32
}

/// Which enabled return a path step names, if it names one.
fn returned(m: u32) -> Option<usize> {
    (m > RET - (1 << 16)).then(|| (RET - m) as usize)
}

/// Whether transition `k` of `model` is a return.
fn is_return(model: &Model, k: usize) -> bool {
    model.transitions[k].stack == StackOp::Return
}

/// The classification with every point visible in all copies of its
/// procedure if it is in one.
pub fn uniform(model: &Model, mut class: Classification) -> Classification {
    for (t, th) in model.threads.iter().enumerate() {
        for f in &th.frames {
            let len = (f.points.end - f.points.start) as usize;
            for o in 0..len {
                let any = th.frames.iter().filter(|g| g.proc == f.proc).any(|g| {
                    class.points[t]
                        .get((g.points.start as usize) + o)
                        .copied()
                        .unwrap_or(false)
                });
                class.points[t][f.points.start as usize + o] = any;
            }
        }
    }
    for (k, tr) in model.transitions.iter().enumerate() {
        class.transitions[k].visible = class.points[tr.thread as usize][tr.from as usize];
    }
    class
}

/// What each thread shares: per thread, the match with an earlier thread
/// whose summaries it uses for its whole code (`whole`), or else per
/// procedure (`procs`). A thread matches the first earlier one that is
/// not itself using another's, whose code is the same up to their
/// identity ([`Swaps::threads`], [`Swaps::procedure`]) and that the
/// transactions treat alike ([`Stepper::alike`]), where both forget every
/// other thread's slots (and, for a procedure, their bodies' locals). Then
/// a node of t, carried to r, is a node of r: the slots it keeps are t's
/// matched ones and the shared ones, which the swap carries over (locks
/// exchanging t and r), and everything t's transactions do from it and
/// every check they make is the same, swapped (summaries stop at the
/// others' moves, and a procedure's at its returns).
struct Shares {
    whole: Vec<Option<Swap>>,
    procs: Vec<Vec<Option<Swap>>>,
}

impl Shares {
    fn none(model: &Model) -> Shares {
        Shares {
            whole: (0..model.threads.len()).map(|_| None).collect(),
            procs: (0..model.threads.len())
                .map(|_| (0..model.procs.len()).map(|_| None).collect())
                .collect(),
        }
    }

    fn find<X: Stepper>(
        model: &Model,
        steps: &X,
        forgets: &[bool],
        body: &[Vec<usize>],
        swaps: &Swaps,
    ) -> Shares {
        let mut shares = Shares::none(model);
        for t in (0..model.threads.len()).filter(|&t| forgets[t]) {
            shares.whole[t] = (0..t)
                .filter(|&r| shares.whole[r].is_none() && forgets[r])
                .take(CANDIDATES)
                .find_map(|r| swaps.threads(model, r, t).filter(|s| steps.alike(s)));
        }
        // A procedure's nodes keep no local of the thread's body.
        let bare = |t: usize| forgets[t] && body[t].len() == model.threads[t].locals.len();
        for p in 0..model.procs.len() {
            let runs = |t: usize| runs(model, t, p);
            for t in (0..model.threads.len())
                .filter(|&t| shares.whole[t].is_none() && bare(t) && runs(t))
            {
                shares.procs[t][p] = (0..t)
                    .filter(|&r| {
                        shares.whole[r].is_none()
                            && shares.procs[r][p].is_none()
                            && bare(r)
                            && runs(r)
                    })
                    .take(CANDIDATES)
                    .find_map(|r| {
                        swaps
                            .procedure(model, r, t, p as u32)
                            .filter(|s| steps.alike(s))
                    });
            }
        }
        shares
    }

    /// Threads that use another's summaries for some of their code.
    fn sharing(&self) -> u64 {
        (0..self.whole.len())
            .filter(|&t| self.whole[t].is_some() || self.procs[t].iter().any(Option::is_some))
            .count() as u64
    }
}

/// Whether thread `t` of `model` may run procedure `p`.
fn runs(model: &Model, t: usize, p: usize) -> bool {
    model.threads[t].frames.iter().any(|f| f.proc as usize == p)
}

/// A summary's key: the thread, the kind of node, and the node.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    thread: u32,
    kind: Kind,
    node: Vec<i64>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// A stored state: the start of a transaction; where every thread is
    /// scheduled already.
    Start,
    /// Reached inside a transaction by a both-mover.
    Inside,
    /// Reached inside a transaction by a transition that commits.
    Commit,
}

/// How a path edge was made.
#[derive(Clone, Copy)]
enum Move {
    /// One transition of the frame.
    Step(u32),
    /// A call (its offset), the callee's path to `exit`, and the return
    /// (which enabled one, see [`ret`]).
    Call(u32, usize, usize),
}

struct Node {
    state: Vec<i64>,
    sum: usize,
    parent: Option<(usize, Move)>,
    /// Reached by a transition that is not a both-mover.
    commit: bool,
    /// The transaction ends here (by itself, blocked, or by force).
    end: bool,
    /// A return point: the caller returns from here.
    ret: bool,
    /// Some transition of the frame was enabled here.
    moved: bool,
    /// Path edges to nodes of the same summary.
    succ: Vec<usize>,
    /// Calls from here: the call's offset and the callee's summary.
    calls: Vec<(u32, usize)>,
    /// Reaches an end, in this frame or deeper (settled).
    inner: bool,
    /// Reaches a return point.
    reaches_ret: bool,
}

struct Caller {
    sum: usize,
    node: usize,
    off: u32,
    /// The state just after the call, in the caller's summary.
    entered: Vec<i64>,
}

struct Summary {
    thread: usize,
    entry: usize,
    kind: Kind,
    nodes: HashMap<Vec<i64>, usize>,
    callers: Vec<Caller>,
    /// The first call that asked for it, in the same round of work.
    origin: Option<(usize, u32)>,
    edges: u64,
}

/// The transactions a summary is made of: Stoller-Cohen's steps
/// ([`Steps`]) or Flanagan-Qadeer's mover transactions
/// ([`super::movers::Txs`]). A node of either is a state followed by what
/// the reduction keeps per transaction (the movers' phase bit), and the
/// summaries treat those extra words as part of the frame-free node: the
/// phase is what tells a callee's pre-commit summary from its post-commit
/// one (2004, figure 5).
pub trait Stepper: Transaction {
    /// What the steps watch besides the semantics.
    fn watch_mut(&mut self) -> &mut Watch;
    /// Whether the transactions treat the code `swap` matches alike in
    /// its two threads: where they stop, and how each pair of matched
    /// transitions is judged.
    fn alike(&self, swap: &Swap) -> bool;
}

impl Stepper for Steps<'_> {
    fn watch_mut(&mut self) -> &mut Watch {
        Steps::watch_mut(self)
    }

    fn alike(&self, swap: &Swap) -> bool {
        Steps::alike(self, swap)
    }
}

/// How many threads a thread is compared with when looking for one whose
/// summaries it can use: comparing is linear in a thread's code, and a
/// model of many different threads must not pay it quadratically.
const CANDIDATES: usize = 16;

/// The expander of `--summaries`.
pub struct Summaries<'m, X: Stepper> {
    model: &'m Model,
    steps: X,
    /// Per thread, per frame: the shallowest copy of the same procedure.
    shallow: Vec<Vec<usize>>,
    /// Per thread: the slots of its frames and its return points, and the
    /// slots of other threads that nothing it runs or checks reads.
    stack: Vec<Vec<usize>>,
    /// Per thread: its body's locals, which the nodes of its procedures'
    /// frames forget.
    body: Vec<Vec<usize>>,
    /// What each thread shares with an earlier one.
    shares: Shares,
    swaps: Swaps,
    /// Summaries are keyed by the thread itself for now: a violation found
    /// in another thread's summary is being found again in its own terms.
    own: bool,
    /// The search records or narrows accesses, which are per thread.
    recording: bool,
    index: HashMap<Key, usize>,
    sums: Vec<Summary>,
    nodes: Vec<Node>,
    work: Vec<usize>,
    /// Summaries from this index on were made in the current round.
    fresh: usize,
    /// A violation met in the current round: the node and the path after it.
    bad: Option<(usize, Vec<u32>, Problem)>,
    out: Vec<i64>,
    /// What was computed and reused.
    pub stats: SummaryStats,
}

impl<'m, X: Stepper> Summaries<'m, X> {
    /// The expander of `model` on the transactions of `steps`, with
    /// summaries shared by interchangeable threads if `share`.
    pub fn with(model: &'m Model, steps: X, share: bool) -> Summaries<'m, X> {
        let shallow = model
            .threads
            .iter()
            .map(|th| {
                (0..th.frames.len())
                    .map(|f| {
                        (0..th.frames.len())
                            .filter(|&g| th.frames[g].proc == th.frames[f].proc)
                            .min_by_key(|&g| th.frames[g].depth)
                            .unwrap_or(f)
                    })
                    .collect()
            })
            .collect();
        // What the checks of every state read: the invariants and the
        // exclusive access predicates.
        let mut checked = vec![false; model.slots.len()];
        for e in model
            .invariants
            .iter()
            .map(|i| &i.expr)
            .chain(model.protected.iter().flat_map(|p| &p.excl))
        {
            e.for_each_slot(&mut |k| checked[k as usize] = true);
        }
        let swaps = Swaps::new(model);
        // Per thread: its forgotten slots, and whether they include every
        // slot of every other thread (see [`Shares`]).
        let (stack, forgets): (Vec<Vec<usize>>, Vec<bool>) = (0..model.threads.len())
            .map(|t| {
                let th = &model.threads[t];
                let mut read = checked.clone();
                for k in (0..model.transitions.len())
                    .filter(|&k| model.transitions[k].thread as usize == t)
                {
                    for x in crate::classify::slots(model, k).0 {
                        read[x as usize] = true;
                    }
                }
                // Other threads' slots that t's transactions never look at
                // (their program counters and locals) are left out of its
                // nodes, so its summaries hold whatever they are doing.
                let theirs = |k: &usize| swaps.owner(*k).is_some_and(|u| u != t);
                let others = (0..model.slots.len()).filter(|k| theirs(k) && !read[*k]);
                let forgets = !(0..model.slots.len()).any(|k| theirs(&k) && read[k]);
                let stack = th
                    .frames
                    .iter()
                    .flat_map(|f| f.slots.clone())
                    .chain(th.ret.iter().copied())
                    .map(|k| k as usize)
                    .chain(others)
                    .collect();
                (stack, forgets)
            })
            .unzip();
        // A procedure cannot see its caller's locals: the summaries of
        // its frames forget the thread body's, unless a check reads them.
        // (A return writes one, `r := call f()`, but the caller takes the
        // return, with its own locals.)
        let body: Vec<Vec<usize>> = (0..model.threads.len())
            .map(|t| {
                let th = &model.threads[t];
                let mut used = checked.clone();
                for k in th
                    .points
                    .iter()
                    .filter(|p| p.frame.is_some())
                    .flat_map(|p| p.transitions.clone())
                {
                    if model.transitions[k].stack != StackOp::Return {
                        let (reads, writes) = crate::classify::slots(model, k);
                        for x in reads.into_iter().chain(writes) {
                            used[x as usize] = true;
                        }
                    }
                }
                th.locals
                    .clone()
                    .map(|k| k as usize)
                    .filter(|&k| !used[k])
                    .collect()
            })
            .collect();
        let shares = if share {
            Shares::find(model, &steps, &forgets, &body, &swaps)
        } else {
            Shares::none(model)
        };
        let shared = shares.sharing();
        Summaries {
            model,
            steps,
            shallow,
            stack,
            body,
            shares,
            swaps,
            own: false,
            recording: false,
            index: HashMap::new(),
            sums: Vec::new(),
            nodes: Vec::new(),
            work: Vec::new(),
            fresh: 0,
            bad: None,
            out: Vec::new(),
            stats: SummaryStats {
                shared,
                ..SummaryStats::default()
            },
        }
    }

    /// The threads that run procedure `p` like an earlier thread but keep
    /// their own summaries of it, as `(thread, procedure)`: their code is
    /// not the earlier one's up to their identity, or the transactions
    /// judge it otherwise.
    pub(super) fn unshared(&self) -> Vec<(usize, usize)> {
        let model = self.model;
        let runs = |t: usize, p: usize| runs(model, t, p);
        let mut out = Vec::new();
        for p in 0..model.procs.len() {
            for t in 1..model.threads.len() {
                let shared = self.shares.whole[t].is_some() || self.shares.procs[t][p].is_some();
                if runs(t, p) && !shared && (0..t).any(|r| runs(r, p)) {
                    out.push((t, p));
                }
            }
        }
        out
    }

    /// The node without a stack of thread `t` in `s`.
    fn canon(&self, t: usize, s: &[i64]) -> Vec<i64> {
        let mut out = s.to_vec();
        let th = &self.model.threads[t];
        for &k in &self.stack[t] {
            out[k] = self.model.init[k];
        }
        if let Some(f) = th.points[s[t] as usize].frame {
            let (f, f0) = (
                &th.frames[f as usize],
                &th.frames[self.shallow[t][f as usize]],
            );
            for j in 0..f.slots.len() {
                out[f0.slots.start as usize + j] = s[f.slots.start as usize + j];
            }
            out[t] = f0.points.start + (s[t] - f.points.start);
            for &k in &self.body[t] {
                out[k] = self.model.init[k];
            }
        }
        out
    }

    /// Node `c` put back on the stack of `r`, whose top frame runs the same
    /// procedure.
    fn decanon(&self, t: usize, c: &[i64], r: &[i64]) -> Vec<i64> {
        let mut out = c.to_vec();
        let th = &self.model.threads[t];
        for &k in &self.stack[t] {
            out[k] = r[k];
        }
        if let (Some(f0), Some(f)) = (
            th.points[c[t] as usize].frame,
            th.points[r[t] as usize].frame,
        ) {
            let (f0, f) = (&th.frames[f0 as usize], &th.frames[f as usize]);
            for j in 0..f.slots.len() {
                out[f.slots.start as usize + j] = c[f0.slots.start as usize + j];
            }
            out[t] = f.points.start + (c[t] - f0.points.start);
            for &k in &self.body[t] {
                out[k] = r[k];
            }
        }
        out
    }

    /// The match thread `t` uses for its code at point `pc`, if it uses
    /// another thread's summaries there.
    fn share(&self, t: usize, pc: i64) -> Option<&Swap> {
        let th = &self.model.threads[t];
        self.shares.whole[t].as_ref().or_else(|| {
            let f = th.points[pc as usize].frame?;
            self.shares.procs[t][th.frames[f as usize].proc as usize].as_ref()
        })
    }

    /// The key of thread `t`'s node `node` (made by [`Self::canon`]): the
    /// node itself, or the node carried to the thread whose summaries t
    /// uses there.
    fn key(&self, t: usize, node: Vec<i64>) -> (usize, Vec<i64>) {
        match self
            .share(t, node[t])
            .filter(|_| !self.own && !self.recording)
        {
            Some(swap) => {
                let r = swap.a;
                (r, self.canon(r, &self.swaps.carry(swap, false, &node)))
            }
            None => (t, node),
        }
    }

    /// Node `node` of summary `sum` put back on thread `t`'s stack in `c`.
    fn place(&self, sum: usize, t: usize, node: &[i64], c: &[i64]) -> Vec<i64> {
        if self.sums[sum].thread == t {
            return self.decanon(t, node, c);
        }
        // The summary is of the thread t's code there matches; the slots
        // the carry leaves behind are forgotten ones, restored from `c`.
        let swap = self
            .share(t, c[t])
            .expect("a summary of another thread is shared");
        assert_eq!(swap.a, self.sums[sum].thread);
        self.decanon(t, &self.swaps.carry(swap, true, node), c)
    }

    /// The summary of node `node` of thread `t`, made if new.
    fn summary(
        &mut self,
        t: usize,
        kind: Kind,
        node: Vec<i64>,
        origin: Option<(usize, u32)>,
        budget: &mut Budget,
    ) -> Result<(usize, bool), Halt> {
        let key = Key {
            thread: t as u32,
            kind,
            node,
        };
        if let Some(&s) = self.index.get(&key) {
            if s < self.fresh {
                self.stats.reused += self.sums[s].edges;
            }
            return Ok((s, false));
        }
        let id = self.sums.len();
        let entry = self.nodes.len();
        self.sums.push(Summary {
            thread: t,
            entry,
            kind,
            nodes: HashMap::new(),
            callers: Vec::new(),
            origin,
            edges: 0,
        });
        self.stats.entries += 1;
        self.add_node(id, key.node.clone(), None, kind == Kind::Commit, budget)?;
        self.index.insert(key, id);
        Ok((id, true))
    }

    /// The node `state` of summary `sum`, made if new (then queued).
    fn add_node(
        &mut self,
        sum: usize,
        state: Vec<i64>,
        parent: Option<(usize, Move)>,
        commit: bool,
        budget: &mut Budget,
    ) -> Result<(usize, bool), Halt> {
        if let Some(&n) = self.sums[sum].nodes.get(&state) {
            self.nodes[n].commit |= commit;
            return Ok((n, false));
        }
        // The node's state twice (node and map key) and its bookkeeping.
        let bytes = (state.len() * 16 + 160) as u64;
        budget.afford(bytes)?;
        budget.exp_bytes += bytes;
        let n = self.nodes.len();
        self.sums[sum].nodes.insert(state.clone(), n);
        self.nodes.push(Node {
            state,
            sum,
            parent,
            commit,
            end: false,
            ret: false,
            moved: false,
            succ: Vec::new(),
            calls: Vec::new(),
            inner: false,
            reaches_ret: false,
        });
        self.work.push(n);
        Ok((n, true))
    }

    /// Marks node `n` an end of its summary.
    fn end(&mut self, n: usize) {
        let sum = self.nodes[n].sum;
        let root = self.sums[sum].kind == Kind::Start && self.sums[sum].entry == n;
        if !root && !self.nodes[n].end {
            self.nodes[n].end = true;
            self.sums[sum].edges += 1;
            self.stats.computed += 1;
        }
    }

    /// The path from node `n`'s summary entry to it, as offsets.
    fn moves(&self, n: usize, out: &mut Vec<u32>) {
        let mut chain = Vec::new();
        let mut at = n;
        while let Some((p, m)) = self.nodes[at].parent {
            chain.push(m);
            at = p;
        }
        for m in chain.into_iter().rev() {
            match m {
                Move::Step(o) => out.push(o),
                Move::Call(o, exit, j) => {
                    out.push(o);
                    self.moves(exit, out);
                    out.push(ret(j));
                }
            }
        }
    }

    /// The path from the entry of summary `base` to the entry of `sum`,
    /// through the calls that made it in this round.
    fn moves_to(&self, base: usize, sum: usize, out: &mut Vec<u32>) {
        if sum == base {
            return;
        }
        if let Some((m, o)) = self.sums[sum].origin {
            self.moves_to(base, self.nodes[m].sum, out);
            self.moves(m, out);
            out.push(o);
        }
    }

    /// The transitions of `moves` from `s`, thread `t`, in the thread's
    /// real frames; the last may fail, and then its fault comes too. A summary explores a callee in the
    /// shallowest copies, so from a deep frame its path may need a call
    /// deeper than `--max-stack`: that path cannot be shown or replayed,
    /// and the run ends at the stack bound, as it would without summaries.
    fn concrete(
        &self,
        t: usize,
        s: &[i64],
        moves: &[u32],
    ) -> Result<(Vec<u32>, Option<Problem>), Stop> {
        // The replay runs in the full semantics, on the state alone.
        let s = &s[..self.model.slots.len()];
        let (mut cur, mut out, mut path) = (s.to_vec(), Vec::new(), Vec::new());
        for (n, &m) in moves.iter().enumerate() {
            let range = self.model.threads[t].points[cur[t] as usize]
                .transitions
                .clone();
            let (candidates, mut skip): (Vec<usize>, usize) = match returned(m) {
                Some(j) => (range.filter(|&k| is_return(self.model, k)).collect(), j),
                None => {
                    let mut steps = range.filter(|&k| !is_return(self.model, k));
                    (steps.nth(m as usize).into_iter().collect(), 0)
                }
            };
            let mut next = None;
            for k in candidates {
                let fault = match step(self.model, k, &cur, &mut out) {
                    StepResult::Disabled => continue,
                    StepResult::Ok => None,
                    StepResult::Bad(p) => Some(p),
                };
                if skip == 0 {
                    next = Some((k, fault));
                    break;
                }
                skip -= 1;
            }
            let last = n + 1 == moves.len();
            match next {
                Some((k, None)) => {
                    path.push(k as u32);
                    std::mem::swap(&mut cur, &mut out);
                }
                Some((k, Some(p))) if last => {
                    path.push(k as u32);
                    return Ok((path, Some(p)));
                }
                _ => {
                    return Err(Stop::Found(Found {
                        problem: Problem::Fault(crate::model::Fault::StackBound {
                            bound: self.model.max_stack,
                        }),
                        path,
                    }));
                }
            }
        }
        Ok((path, None))
    }

    /// Explores the queued nodes (level II), then settles the summaries made.
    fn drain(&mut self, budget: &mut Budget) -> Result<(), Halt> {
        while let Some(n) = self.work.pop() {
            budget.tick()?;
            self.expand_node(n, budget)?;
            if self.bad.is_some() {
                self.work.clear();
                return Ok(());
            }
        }
        self.settle();
        Ok(())
    }

    fn expand_node(&mut self, n: usize, budget: &mut Budget) -> Result<(), Halt> {
        let sum = self.nodes[n].sum;
        let t = self.sums[sum].thread;
        if self.nodes[n].end {
            return Ok(());
        }
        let state = self.nodes[n].state.clone();
        let pc = state[t];
        let range = self.model.threads[t].points[pc as usize]
            .transitions
            .clone();
        let ret = range.clone().any(|k| is_return(self.model, k));
        if ret {
            self.nodes[n].ret = true;
            self.sums[sum].edges += 1;
            self.stats.computed += 1;
            let callers: Vec<usize> = (0..self.sums[sum].callers.len()).collect();
            for c in callers {
                self.compose(sum, c, n, budget)?;
                if self.bad.is_some() {
                    return Ok(());
                }
            }
            if range.clone().all(|k| is_return(self.model, k)) {
                return Ok(());
            }
            // An `either` whose branches return or go on: the point is a
            // return point and a point of the frame at once.
        }
        let mut moved = false;
        let steps = range.filter(|&k| !is_return(self.model, k));
        for (o, k) in steps.enumerate() {
            let o = o as u32;
            let fired = self.steps.fire(t, k, &state, &mut self.out);
            let commit = match fired {
                Fired::Disabled => continue,
                Fired::Bad(p) => {
                    self.nodes[n].moved = true;
                    self.bad = Some((n, vec![o], p));
                    return Ok(());
                }
                Fired::Ends => None,
                Fired::Continues { commit } => Some(commit),
            };
            moved = true;
            let out = std::mem::take(&mut self.out);
            if let StackOp::Call(_) = self.model.transitions[k].stack {
                // CFL PUSH: the callee's summary from its entry.
                let kind = if commit.unwrap_or(true) {
                    Kind::Commit
                } else {
                    Kind::Inside
                };
                let (r, node) = self.key(t, self.canon(t, &out));
                let (callee, new) = self.summary(r, kind, node, Some((n, o)), budget)?;
                if new && commit.is_none() {
                    // The callee's first point ends the transaction.
                    let e = self.sums[callee].entry;
                    self.end(e);
                }
                self.nodes[n].calls.push((o, callee));
                self.sums[callee].callers.push(Caller {
                    sum,
                    node: n,
                    off: o,
                    entered: out.clone(),
                });
                let c = self.sums[callee].callers.len() - 1;
                let mut exits: Vec<usize> = self.sums[callee]
                    .nodes
                    .values()
                    .copied()
                    .filter(|&r| self.nodes[r].ret)
                    .collect();
                // In the order they were made: a map's order differs from
                // run to run, and so would the first violation and its trace.
                exits.sort_unstable();
                for r in exits {
                    self.compose(callee, c, r, budget)?;
                    if self.bad.is_some() {
                        return Ok(());
                    }
                }
            } else {
                let node = self.canon(t, &out);
                let (m, _) = self.add_node(
                    sum,
                    node,
                    Some((n, Move::Step(o))),
                    commit.unwrap_or(true),
                    budget,
                )?;
                self.nodes[n].succ.push(m);
                if commit.is_none() {
                    self.end(m);
                }
            }
            self.out = out;
        }
        self.nodes[n].moved = moved;
        if !moved && !ret {
            // Blocked: its guards read only what no other thread changes.
            self.end(n);
        }
        Ok(())
    }

    /// CFL POP: the return from exit `r` of summary `callee` to its caller
    /// number `c`, whose path edge goes on after the call.
    fn compose(
        &mut self,
        callee: usize,
        c: usize,
        r: usize,
        budget: &mut Budget,
    ) -> Result<(), Halt> {
        let (sum, m, off) = {
            let caller = &self.sums[callee].callers[c];
            (caller.sum, caller.node, caller.off)
        };
        // The caller's thread, whose own return the caller takes.
        let t = self.sums[sum].thread;
        let back = self.place(
            callee,
            t,
            &self.nodes[r].state,
            &self.sums[callee].callers[c].entered,
        );
        // Only the returns: at an `either` that returns or goes on, the
        // other branches are the callee's own moves.
        let range = self.model.threads[t].points[back[t] as usize]
            .transitions
            .clone()
            .filter(|&k| self.model.transitions[k].stack == StackOp::Return);
        let mut j = 0;
        for k in range {
            let fired = self.steps.fire(t, k, &back, &mut self.out);
            if let Fired::Disabled = fired {
                continue;
            }
            j += 1;
            match fired {
                Fired::Disabled => {}
                Fired::Bad(p) => {
                    let mut path = vec![off];
                    self.moves(r, &mut path);
                    path.push(ret(j - 1));
                    self.bad = Some((m, path, p));
                    return Ok(());
                }
                fired => {
                    let ends = matches!(fired, Fired::Ends);
                    let node = self.canon(t, &self.out);
                    let step = Move::Call(off, r, j - 1);
                    let (x, _) = self.add_node(sum, node, Some((m, step)), true, budget)?;
                    self.nodes[m].succ.push(x);
                    if ends {
                        self.end(x);
                    }
                }
            }
        }
        Ok(())
    }

    /// Decides which nodes of this round's summaries complete, and ends
    /// the transaction by force at commit points that cannot.
    fn settle(&mut self) {
        let first = self
            .sums
            .get(self.fresh)
            .map_or(self.nodes.len(), |s| s.entry);
        loop {
            for n in first..self.nodes.len() {
                // A transaction that comes back to the stored state it
                // started from completes there, as in [`super::commit`]:
                // every thread is scheduled at a stored state.
                let sum = &self.sums[self.nodes[n].sum];
                let root = sum.kind == Kind::Start && sum.entry == n;
                let node = &mut self.nodes[n];
                node.inner = node.end || root;
                node.reaches_ret = node.ret;
            }
            let mut changed = true;
            while changed {
                changed = false;
                for n in (first..self.nodes.len()).rev() {
                    let node = &self.nodes[n];
                    let inner = node.inner
                        || node.succ.iter().any(|&m| self.nodes[m].inner)
                        || node
                            .calls
                            .iter()
                            .any(|&(_, s)| self.nodes[self.sums[s].entry].inner);
                    let ret =
                        node.reaches_ret || node.succ.iter().any(|&m| self.nodes[m].reaches_ret);
                    if inner != node.inner || ret != node.reaches_ret {
                        let node = &mut self.nodes[n];
                        (node.inner, node.reaches_ret) = (inner, ret);
                        changed = true;
                    }
                }
            }
            let stuck = (first..self.nodes.len()).find(|&n| {
                let node = &self.nodes[n];
                let root =
                    self.sums[node.sum].kind == Kind::Start && self.sums[node.sum].entry == n;
                node.commit && !node.inner && !node.reaches_ret && !root
            });
            match stuck {
                Some(n) => {
                    self.end(n);
                    self.stats.forced += 1;
                }
                None => break,
            }
        }
        // Calls that end inside their callee are the summary edges the
        // search takes itself (Sum⁺).
        for n in first..self.nodes.len() {
            let deep = self.nodes[n]
                .calls
                .iter()
                .filter(|&&(_, s)| self.nodes[self.sums[s].entry].inner)
                .count() as u64;
            let sum = self.nodes[n].sum;
            self.sums[sum].edges += deep;
            self.stats.computed += deep;
        }
        self.fresh = self.sums.len();
    }

    /// The summary of thread `t`'s node in concrete state `c`, computed if
    /// new; a violation met on the way, with its path from `c`.
    fn ensure(
        &mut self,
        t: usize,
        kind: Kind,
        c: &[i64],
        budget: &mut Budget,
    ) -> Result<usize, Stop> {
        self.fresh = self.sums.len();
        // Accesses recorded or narrowed are per thread: those runs keep
        // every thread's summaries its own.
        let watch = self.steps.watch_mut();
        self.recording = watch.log.is_some() || watch.narrowing.is_some();
        let (r, node) = self.key(t, self.canon(t, c));
        let (sum, _) = self.summary(r, kind, node, None, budget)?;
        self.drain(budget)?;
        if let Some((n, tail, problem)) = self.bad.take() {
            let mut moves = Vec::new();
            self.moves_to(sum, self.nodes[n].sum, &mut moves);
            self.moves(n, &mut moves);
            moves.extend(tail);
            // Rounds end settled, so the summaries cut short are dropped.
            self.forget();
            if r != t {
                // The violation is told in r's terms (its threads and
                // slots): found again in t's own, it is told in t's.
                self.own = true;
                let again = self.ensure(t, kind, c, budget);
                self.own = false;
                again?;
                // Not found again: the summary was not the thread's, and
                // its path is no trace of this thread. No verdict rather
                // than a wrong one.
                return Err(Stop::from(budget.stop(crate::explore::Limit::Internal(
                    "a violation found through another thread's summary is not one of the thread's own",
                ))));
            }
            let (path, fault) = self.concrete(t, c, &moves)?;
            // A summary runs a callee in its shallowest copy: a fault names
            // that copy's slots. Told again in the thread's real frames.
            let problem = fault.unwrap_or(problem);
            return Err(Stop::Found(Found { problem, path }));
        }
        Ok(sum)
    }

    /// Drops this round's summaries (a violation cut it short).
    fn forget(&mut self) {
        let first = self
            .sums
            .get(self.fresh)
            .map_or(self.nodes.len(), |s| s.entry);
        self.nodes.truncate(first);
        self.sums.truncate(self.fresh);
        let fresh = self.fresh;
        self.index.retain(|_, s| *s < fresh);
        for s in &mut self.sums {
            s.callers.retain(|c| c.node < first);
        }
        for n in &mut self.nodes {
            n.succ.retain(|&m| m < first);
            n.calls.retain(|&(_, s)| s < fresh);
        }
    }

    /// Level I: emits the successors of concrete state `c`, where thread
    /// `t` is at the entry of summary `sum`, reached from the stored state
    /// by `prefix`. Returns whether `t` could move at `c`.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        sum: usize,
        t: usize,
        c: &[i64],
        prefix: &[u32],
        returns: bool,
        budget: &mut Budget,
        emit: &mut Emit,
    ) -> Result<bool, Stop> {
        // The transitions a step stands for, replayed in the thread's real
        // frames: traces need them, and the search counts them.
        let path_to = |this: &Self, n: usize| -> Result<Vec<u32>, Stop> {
            let mut path = prefix.to_vec();
            let mut moves = Vec::new();
            this.moves(n, &mut moves);
            path.extend(
                this.concrete(t, c, &moves)
                    .map_err(|e| prepend(e, prefix))?
                    .0,
            );
            Ok(path)
        };
        let entry = self.sums[sum].entry;
        let mut moved = self.nodes[entry].moved;
        let mut members: Vec<usize> = self.sums[sum].nodes.values().copied().collect();
        members.sort_unstable();
        for n in members {
            if self.nodes[n].end {
                let s = self.place(sum, t, &self.nodes[n].state, c);
                emit(self.steps.state(&s), &path_to(self, n)?, budget)?;
            }
            if returns && self.nodes[n].ret {
                // POP, with the real stack.
                let back = self.place(sum, t, &self.nodes[n].state, c);
                let before = path_to(self, n)?;
                let range = self.model.threads[t].points[back[t] as usize]
                    .transitions
                    .clone()
                    .filter(|&k| self.model.transitions[k].stack == StackOp::Return);
                for k in range {
                    let mut out = Vec::new();
                    let fired = self.steps.fire(t, k, &back, &mut out);
                    let mut path = before.clone();
                    path.push(k as u32);
                    match fired {
                        Fired::Disabled => continue,
                        Fired::Bad(problem) => return Err(Stop::Found(Found { problem, path })),
                        Fired::Ends => emit(self.steps.state(&out), &path, budget)?,
                        Fired::Continues { .. } => {
                            let next = self
                                .ensure(t, Kind::Commit, &out, budget)
                                .map_err(|e| prepend(e, &path))?;
                            self.apply(next, t, &out, &path, true, budget, emit)?;
                        }
                    }
                    if n == entry {
                        moved = true;
                    }
                }
            }
            let calls = self.nodes[n].calls.clone();
            for (o, callee) in calls {
                if !self.nodes[self.sums[callee].entry].inner {
                    continue;
                }
                // PUSH: the call taken with the real stack.
                let at = self.place(sum, t, &self.nodes[n].state, c);
                let mut path = path_to(self, n)?;
                let k = self.model.threads[t].points[at[t] as usize]
                    .transitions
                    .clone()
                    .filter(|&k| !is_return(self.model, k))
                    .nth(o as usize)
                    .expect("a call of the summary is a transition of the point");
                path.push(k as u32);
                let mut out = Vec::new();
                match self.steps.fire(t, k, &at, &mut out) {
                    Fired::Disabled => {}
                    Fired::Bad(problem) => return Err(Stop::Found(Found { problem, path })),
                    Fired::Ends => emit(self.steps.state(&out), &path, budget)?,
                    Fired::Continues { .. } => {
                        // The callee's summary is in the terms of the
                        // thread this summary's calls use; if t uses
                        // another there, it is looked up in t's terms.
                        let r = self.sums[callee].thread;
                        let direct = r == t || self.share(t, out[t]).is_some_and(|s| s.a == r);
                        let callee = if direct {
                            callee
                        } else {
                            let kind = self.sums[callee].kind;
                            self.ensure(t, kind, &out, budget)
                                .map_err(|e| prepend(e, &path))?
                        };
                        self.apply(callee, t, &out, &path, false, budget, emit)?;
                    }
                }
            }
        }
        Ok(moved)
    }
}

/// A violation found after `prefix`.
fn prepend(e: Stop, prefix: &[u32]) -> Stop {
    match e {
        Stop::Found(Found { problem, path }) => {
            let mut full = prefix.to_vec();
            full.extend(path);
            Stop::Found(Found {
                problem,
                path: full,
            })
        }
        other => other,
    }
}

impl<X: Stepper> Expand for Summaries<'_, X> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(self.steps.watch_mut())
    }

    /// Every thread takes its transaction from `s`, read off its summary.
    fn expand(&mut self, s: &[i64], budget: &mut Budget, emit: &mut Emit) -> Result<bool, Stop> {
        let mut enabled = false;
        let mut node = Vec::new();
        self.steps.node(s, &mut node);
        for t in 0..self.model.threads.len() {
            let sum = self.ensure(t, Kind::Start, &node, budget)?;
            enabled |= self.apply(sum, t, &node, &[], true, budget, emit)?;
        }
        Ok(enabled)
    }
}
