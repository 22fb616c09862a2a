//! The report's first lines in plain words: what the reduction does and
//! what its stored states are, before the papers' names for them (a reader
//! new to Stoller and Cohen's paper should not need it to read a report).

use std::fmt;

/// The widest line the wrapped lines of a report reach.
const WIDTH: usize = 88;

/// The words for a reduction: what it does, where the states it stores
/// are (none for the full exploration, whose states are all of them), and
/// what its counted steps are (the papers' reduced steps).
pub(crate) struct Words {
    pub does: String,
    pub stored: Option<&'static str>,
    pub counted: &'static str,
}

/// The reduction called `name` in words, its name after them.
pub(crate) fn reduction(name: &str) -> Words {
    const NONE: &str = "--reduction none: every interleaving";
    const RUNS: &str = "where a thread's private run ends";
    const TRANSACTIONS: &str = "where a transaction ends";
    const RUN: &str = "a private run counts as one step";
    const TRANSACTION: &str = "a transaction counts as one step";
    const EACH: &str = "each transition is a step";
    let (does, stored, counted) = match name {
        "none" => {
            return Words {
                does: "none: every interleaving of the threads' steps is explored".into(),
                stored: None,
                counted: EACH,
            };
        }
        "sc" => (
            "Stoller and Cohen's (sc): a thread's private steps (no other \
             thread sees them) run as one",
            RUNS,
            RUN,
        ),
        "movers" => (
            "Flanagan and Qadeer's movers (movers): a thread's steps that \
             commute with others' run as one",
            TRANSACTIONS,
            TRANSACTION,
        ),
        "stubborn" => (
            "stubborn sets (stubborn): in each state only a set of steps \
             that the others cannot disturb is explored",
            "reached through those sets",
            EACH,
        ),
        "sc+stubborn" => (
            "stubborn sets over Stoller and Cohen's steps (sc+stubborn): a \
             thread's private steps run as one step, and in each state only a \
             set of them that the others cannot disturb is explored",
            RUNS,
            RUN,
        ),
        "movers+stubborn" => (
            "stubborn sets over Flanagan and Qadeer's movers (movers+stubborn): \
             transactions of steps that commute, and in each state only a \
             set of them that the others cannot disturb is explored",
            TRANSACTIONS,
            TRANSACTION,
        ),
        other => {
            return Words {
                does: format!("{other}; {NONE}"),
                stored: Some("where a reduced step ends"),
                counted: "a reduced step counts as one",
            };
        }
    };
    Words {
        does: format!("{does}; {NONE}"),
        stored: Some(stored),
        counted,
    }
}

/// What the search does where a thread's private run (a run of steps no
/// other thread sees) can go on forever
/// (`check --ignoring`), in words, its name after them.
pub(crate) fn ignoring(name: &str) -> String {
    let words = match name {
        "cpc" => "an endless private run is cut where it cannot finish",
        "cycles" => "a private run that closes a loop is cut there",
        "forbid" => "an endless private run ends the check inconclusive",
        "unsound" => "a private run's loops are cut and no other thread moves there: unsound",
        other => other,
    };
    format!("{words} (--ignoring {name})")
}

/// How stubborn sets judge interference (`check --interference`), in words.
pub(crate) fn interference(name: &str) -> String {
    let words = match name {
        "static" => "judged from every slot a step may touch, whatever the state",
        "state" => "judged from what each step touches in the state",
        "semantic" => {
            "judged from what each step touches in the state, then from what \
             the other threads can really do"
        }
        other => other,
    };
    format!("{words} (--interference {name})")
}

/// `label` in the first column, then `text` wrapped to [`WIDTH`] columns
/// under the second.
pub(crate) fn wrapped(f: &mut fmt::Formatter<'_>, label: &str, text: &str) -> fmt::Result {
    let indent = 13;
    let mut line = format!("{label:<12} ");
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.len() + 1 + word.len() > WIDTH {
            writeln!(f, "{line}")?;
            line = " ".repeat(indent);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    writeln!(f, "{line}")
}
