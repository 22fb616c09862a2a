//! Why a deadlocked state is stuck: per thread, what it waits for (the
//! lock and its holder, the semaphore, or the guard with the values that
//! make it false), and the cycle of waits when locks form one.
//!
//! A deadlock is a state where no thread can move and some thread has not
//! ended; a thread that ended is not waiting for anything.

use serde::Serialize;

use crate::model::{CExpr, ChanOp, Dir, FREE, Model, NoAccess, SlotKind, Transition};
use crate::syntax::ast::BinOp;

/// One thread that has not ended, in a deadlocked state.
#[derive(Clone, Debug, Serialize)]
pub struct Blocked {
    /// The thread.
    pub thread: String,
    /// Its control point (label, or `line N`).
    pub at: String,
    /// What it waits for, one entry per statement it could take there.
    pub waits: Vec<Wait>,
    /// The locks it holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub holds: Vec<String>,
}

/// One statement a blocked thread cannot take, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Wait {
    /// The statement.
    pub statement: String,
    /// Its source line.
    pub line: usize,
    /// Why it cannot be taken, in words.
    pub why: String,
    /// The lock it waits for, when it is an `acquire` or a `release`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
    /// That lock's holder (`free` when nobody holds it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// The channel it waits on, for a send or a receive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
}

/// One link of a cycle of waits: `thread` holds `holds` and waits for
/// `waits_for`, which the next thread of the cycle holds.
#[derive(Clone, Debug, Serialize)]
pub struct Link {
    /// The thread.
    pub thread: String,
    /// The lock the previous thread of the cycle waits for.
    pub holds: String,
    /// The lock it waits for.
    pub waits_for: String,
}

/// Why a deadlocked state is stuck.
#[derive(Clone, Debug, Serialize)]
pub struct Deadlock {
    /// Every thread that has not ended.
    pub blocked: Vec<Blocked>,
    /// The threads that have ended.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ended: Vec<String>,
    /// A cycle of threads each waiting for a lock the next one holds, if
    /// there is one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cycle: Vec<Link>,
}

impl Deadlock {
    /// Explains the deadlocked state `s` of `model`.
    pub(crate) fn explain(model: &Model, s: &[i64]) -> Deadlock {
        let mut blocked = Vec::new();
        let mut ended = Vec::new();
        // Per thread, the (lock, holder) pairs it waits for.
        let mut edges: Vec<Vec<(String, usize)>> = vec![Vec::new(); model.threads.len()];
        for (t, th) in model.threads.iter().enumerate() {
            if s[t] == th.end() {
                ended.push(th.name.clone());
                continue;
            }
            // A rendezvous is listed once, as the sender's own send.
            let waits: Vec<Wait> = model
                .enabled_candidates(s, t)
                .iter()
                .filter(|tr| tr.chan.as_ref().is_none_or(|c| c.partner.is_none()))
                .map(|tr| {
                    let (w, holder) = wait(model, tr, t, s);
                    if let (Some(lock), Some(h)) = (&w.lock, holder) {
                        edges[t].push((lock.clone(), h));
                    }
                    w
                })
                .collect();
            // A thread with a way out that is not a lock is not in a cycle of
            // locks: another thread may free it otherwise.
            if waits.iter().any(|w| w.lock.is_none()) {
                edges[t].clear();
            }
            blocked.push(Blocked {
                thread: th.name.clone(),
                at: model.show_value(t, s[t]),
                waits,
                holds: held(model, t, s),
            });
        }
        let cycle = cycle(&edges)
            .into_iter()
            .map(|(t, holds, waits_for)| Link {
                thread: model.threads[t].name.clone(),
                holds,
                waits_for,
            })
            .collect();
        Deadlock {
            blocked,
            ended,
            cycle,
        }
    }

    /// The text report's lines: one per thread that has not ended, one
    /// per statement it waits at, then the ended threads.
    pub(crate) fn write(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut head = "blocked  ";
        for b in &self.blocked {
            let holds = match b.holds.as_slice() {
                [] => String::new(),
                h => format!("; holds {}", h.join(", ")),
            };
            for w in &b.waits {
                writeln!(
                    f,
                    "{head}    {}: `{}` (line {}) {}{holds}",
                    b.thread, w.statement, w.line, w.why
                )?;
                head = "         ";
            }
        }
        if !self.ended.is_empty() {
            writeln!(
                f,
                "ended        {} (an ended thread is not deadlocked)",
                self.ended.join(", ")
            )?;
        }
        Ok(())
    }

    /// One sentence: the cycle of waits, or who waits for what.
    pub fn summary(&self) -> String {
        if !self.cycle.is_empty() {
            let links: Vec<String> = self
                .cycle
                .iter()
                .map(|l| format!("{} holds {}, waits for {}", l.thread, l.holds, l.waits_for))
                .collect();
            return format!("a cycle of waits: {}", links.join("; "));
        }
        let each: Vec<String> = self
            .blocked
            .iter()
            .map(|b| format!("{} at {}", b.thread, b.at))
            .collect();
        each.join(", ")
    }
}

/// The locks thread `t` holds in `s`.
fn held(model: &Model, t: usize, s: &[i64]) -> Vec<String> {
    (model.first_var()..s.len())
        .filter(|&k| model.slots[k].kind == SlotKind::Lock && s[k] == t as i64)
        .map(|k| model.slots[k].name.clone())
        .collect()
}

/// The slot a read of a lock or a semaphore names in `s`.
fn slot_read(e: &CExpr, s: &[i64]) -> Option<usize> {
    match e {
        CExpr::Var { slot, .. } => Some(*slot as usize),
        CExpr::Elem { array, index } => {
            let i = index.eval(s, &mut Vec::new(), &mut NoAccess).ok()?;
            Some(array.slot(i).ok()? as usize)
        }
        _ => None,
    }
}

/// The `(lock slot, value compared with)` of a guard `m == v` on a lock.
fn lock_test(model: &Model, tr: &Transition, s: &[i64]) -> Option<(usize, i64)> {
    let Some(CExpr::Bin(BinOp::Eq, read, want)) = &tr.guard else {
        return None;
    };
    let CExpr::Const(want) = **want else {
        return None;
    };
    let k = slot_read(read, s)?;
    (model.slots[k].kind == SlotKind::Lock).then_some((k, want))
}

/// Why thread `t` cannot take `tr` in `s`, and the thread that holds the
/// lock it waits for, if one does.
fn wait(model: &Model, tr: &Transition, t: usize, s: &[i64]) -> (Wait, Option<usize>) {
    let statement = tr.text.trim_end_matches(';').to_string();
    let mut w = Wait {
        statement,
        line: tr.line,
        why: String::new(),
        lock: None,
        holder: None,
        channel: None,
    };
    if let Some(why) = tr
        .chan
        .as_deref()
        .and_then(|op| channel_wait(model, op, tr, s))
    {
        (w.why, w.channel) = (why.0, Some(why.1));
        return (w, None);
    }
    if let Some((k, want)) = lock_test(model, tr, s) {
        let name = model.slots[k].name.clone();
        let by = model.show_value(k, s[k]);
        w.why = if want == FREE {
            format!("waits for lock {name}, held by {by}")
        } else if s[k] == FREE {
            // `release` of a lock nobody holds, or another's (want is t).
            format!(
                "cannot release {name}: it is free, not held by {}",
                model.threads[t].name
            )
        } else {
            format!("cannot release {name}: {by} holds it")
        };
        w.lock = Some(name);
        w.holder = Some(by);
        let holder = usize::try_from(s[k])
            .ok()
            .filter(|&h| h < model.threads.len());
        return (w, holder);
    }
    if let Some(CExpr::Bin(BinOp::Gt, read, zero)) = &tr.guard
        && **zero == CExpr::Const(0)
        && let Some(k) = slot_read(read, s)
        && model.slots[k].kind == SlotKind::Sem
    {
        w.why = format!(
            "waits for semaphore {} (it is {})",
            model.slots[k].name, s[k]
        );
        return (w, None);
    }
    w.why = match &tr.guard {
        Some(g) => {
            // In a deadlock nothing can move, so `timeout` holds there.
            let why = match tr.timeout {
                true => "its guard is false even with `timeout` true",
                false => "its guard is false",
            };
            match super::values_read(model, g, s) {
                values if values.is_empty() => why.into(),
                values => format!("{why}: {values}"),
            }
        }
        None => "cannot be taken".into(),
    };
    (w, None)
}

/// Why a send or receive cannot be taken in `s`, and on which channel:
/// full, empty, a first message that does not match, or no partner for a
/// rendezvous. `None` where the channel is ready (the guard's other part,
/// an `await` before it in an `atomic`, is false).
fn channel_wait(
    model: &Model,
    op: &ChanOp,
    tr: &Transition,
    s: &[i64],
) -> Option<(String, String)> {
    let c = op.channel(model, s)?;
    let (name, len) = (c.name.clone(), s[c.len as usize]);
    let why = match (op.dir, c.capacity) {
        (Dir::Send, 0) => format!(
            "waits for a thread to receive from {name} (a rendezvous): none is at a receive that accepts it"
        ),
        (Dir::Receive, 0) => format!(
            "waits for a thread to send on {name} (a rendezvous): none is at a matching send"
        ),
        (Dir::Send, cap) if len >= i64::from(cap) => {
            format!("waits to send on {name}, which is full: {}", c.show(s))
        }
        (Dir::Receive, _) if len == 0 => format!("waits to receive from {name}, which is empty"),
        (Dir::Receive, _)
            if tr
                .guard
                .as_ref()
                .is_some_and(|g| g.holds(s, &mut NoAccess) == Ok(false)) =>
        {
            let first = c
                .messages(s)
                .first()
                .map(|m| c.show_message(m))
                .unwrap_or_default();
            format!("waits to receive from {name}: its first message ({first}) does not match")
        }
        _ => return None,
    };
    Some((why, name))
}

/// The first cycle in the wait-for graph `edges`, from the lowest thread,
/// as `(thread, lock it holds that the previous waits for, lock it waits
/// for)`.
fn cycle(edges: &[Vec<(String, usize)>]) -> Vec<(usize, String, String)> {
    for start in 0..edges.len() {
        // Follow the first edge of each thread: a path from `start`.
        let mut path: Vec<(usize, &String)> = Vec::new();
        let mut t = start;
        while let Some((lock, next)) = edges[t].first() {
            if let Some(i) = path.iter().position(|&(u, _)| u == t) {
                let ring = &path[i..];
                if ring[0].0 != start {
                    break; // found from a thread whose own start comes later
                }
                return ring
                    .iter()
                    .enumerate()
                    .map(|(j, &(u, waits))| {
                        let prev = ring[(j + ring.len() - 1) % ring.len()].1;
                        (u, prev.clone(), waits.clone())
                    })
                    .collect();
            }
            path.push((t, lock));
            t = *next;
        }
    }
    Vec::new()
}
