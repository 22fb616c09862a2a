//! A state laid out for people: the shared variables, then one line per
//! thread with where it is (its label or line, and the statement there)
//! and its locals. The JSON twin is [`super::json_state`], one flat object,
//! plus [`ThreadState`] per thread.

use std::fmt;

use serde::Serialize;

use crate::model::{ChanSlot, Model, SlotClass};

/// One thread in a state.
#[derive(Clone, Debug, Serialize)]
pub struct ThreadState {
    /// The thread.
    pub thread: String,
    /// Its control point: a label, `line N`, or `end`.
    pub at: String,
    /// The statement it is at (the first one, where several can be taken),
    /// with its line; absent once the thread has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// The source line of that statement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Its locals (procedures' only for the frames on its stack), as
    /// `name = value`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locals: Vec<String>,
}

/// A whole state, shared variables first, then each thread.
#[derive(Clone, Debug, Serialize)]
pub struct StateLayout {
    /// The shared variables (and locks, semaphores), as `name = value`.
    pub shared: Vec<String>,
    /// Each thread, in declaration order.
    pub threads: Vec<ThreadState>,
}

impl StateLayout {
    /// The layout of state `s` of `model`.
    pub fn of(model: &Model, s: &[i64]) -> StateLayout {
        let live = model.live(s);
        let chans = model.chan_slots();
        let mut shared = Vec::new();
        let mut locals = vec![Vec::new(); model.threads.len()];
        for k in model.first_var()..s.len() {
            match chans[k] {
                ChanSlot::None if live[k] => {}
                ChanSlot::Len(c) => {
                    let ch = &model.channels[c];
                    shared.push(format!("{} = {}", ch.name, ch.show(s)));
                    continue;
                }
                _ => continue,
            }
            let name = &model.slots[k].name;
            let value = model.show_value(k, s[k]);
            match model.slots[k].class {
                SlotClass::Local(t) => {
                    // On the thread's own line, its name is not repeated.
                    let own = format!("{}.", model.threads[t as usize].name);
                    let name = name.strip_prefix(&own).unwrap_or(name);
                    locals[t as usize].push(format!("{name} = {value}"));
                }
                _ => shared.push(format!("{name} = {value}")),
            }
        }
        let threads = model
            .threads
            .iter()
            .enumerate()
            .zip(locals)
            .map(|((t, th), locals)| {
                let here = (s[t] != th.end())
                    .then(|| model.enabled_candidates(s, t).first())
                    .flatten();
                ThreadState {
                    thread: th.name.clone(),
                    at: if s[t] == th.end() {
                        "end".into()
                    } else {
                        model.show_value(t, s[t])
                    },
                    statement: here.map(|tr| tr.text.trim_end_matches(';').to_string()),
                    line: here.map(|tr| tr.line),
                    locals,
                }
            })
            .collect();
        StateLayout { shared, threads }
    }

    /// Short lines for a picture's box: `shared` and its variables, then
    /// each thread's position and locals, with `*` after whatever differs
    /// from `before` (the state the box was reached from).
    pub fn marked(&self, before: Option<&StateLayout>) -> Vec<String> {
        // `name = value` entries, marked where `before` has another value.
        let mark = |now: &[String], then: Option<&[String]>| -> Vec<String> {
            now.iter()
                .map(|e| match then {
                    Some(then) if !then.contains(e) => format!("{e}*"),
                    _ => e.clone(),
                })
                .collect()
        };
        let mut out = Vec::new();
        if !self.shared.is_empty() {
            let then = before.map(|b| b.shared.as_slice());
            out.push(format!("shared: {}", mark(&self.shared, then).join(", ")));
        }
        for (t, th) in self.threads.iter().enumerate() {
            let was = before.and_then(|b| b.threads.get(t));
            let moved = was.is_some_and(|w| w.at != th.at);
            let mut line = format!("{}: {}{}", th.thread, th.at, if moved { "*" } else { "" });
            if !th.locals.is_empty() {
                let then = was.map(|w| w.locals.as_slice());
                line.push_str(&format!("; {}", mark(&th.locals, then).join(", ")));
            }
            out.push(line);
        }
        out
    }

    /// The text under `heading`: `shared` and each thread on a line of its
    /// own, names aligned.
    pub(crate) fn write(&self, f: &mut fmt::Formatter<'_>, heading: &str) -> fmt::Result {
        writeln!(f, "{heading}:")?;
        let width = self
            .threads
            .iter()
            .map(|t| t.thread.chars().count())
            .chain(std::iter::once("shared".len()))
            .max()
            .unwrap_or(0);
        if !self.shared.is_empty() {
            writeln!(f, "  {:width$}  {}", "shared", self.shared.join(", "))?;
        }
        for t in &self.threads {
            let mut line = match (&t.statement, t.line) {
                (Some(st), Some(n)) if t.at == format!("line {n}") => {
                    format!("at line {n}: {st}")
                }
                (Some(st), Some(n)) => format!("at {} (line {n}): {st}", t.at),
                _ => "ended".to_string(),
            };
            if !t.locals.is_empty() {
                line.push_str(&format!("; {}", t.locals.join(", ")));
            }
            writeln!(f, "  {:width$}  {line}", t.thread)?;
        }
        Ok(())
    }
}
