//! The local level: each obligation instance is checked at every valuation
//! of its frame, reachable or not, without exploring the system.

use hashbrown::HashSet;

use super::cycle::{find_cycle, witness};
use super::frame::{Filter, Frame};
use super::law::{Failure, Inst, instances};
use super::system::{QState, Sys};

/// What checking one instance gave.
pub enum InstOutcome {
    /// It holds at every admitted valuation; `valuations` were tried.
    Holds {
        /// Valuations tried.
        valuations: u64,
    },
    /// It fails; the first failure found.
    Fails {
        /// The witness.
        failure: Failure,
        /// Valuations tried up to it.
        valuations: u64,
    },
    /// Its frame is larger than the bound.
    NotChecked {
        /// The frame's size.
        frame: u128,
    },
}

/// Checks every instance at the local level. With `reachable`, only
/// valuations that some state of `reachable` projects to are tried (this
/// is how the tests compare the two levels on the same states).
pub fn run(sys: &Sys, bound: u64, reachable: Option<&[QState]>) -> Vec<(Inst, InstOutcome)> {
    instances(sys)
        .into_iter()
        .map(|inst| {
            let outcome = check(sys, &inst, bound, reachable);
            (inst, outcome)
        })
        .collect()
}

fn check(sys: &Sys, inst: &Inst, bound: u64, reachable: Option<&[QState]>) -> InstOutcome {
    let model = sys.model;
    let Some(frame) = inst.frame(sys) else {
        // At the initial state: nothing to enumerate.
        let st = QState {
            s: model.init.clone(),
            q: sys.bad(&model.init),
        };
        return match inst.check(sys, &st) {
            Some(failure) => InstOutcome::Fails {
                failure,
                valuations: 1,
            },
            None => InstOutcome::Holds { valuations: 1 },
        };
    };
    let size = frame.size();
    if size > u128::from(bound) {
        return InstOutcome::NotChecked { frame: size };
    }
    let projections: Option<HashSet<Vec<i64>>> = reachable.map(|states| {
        states
            .iter()
            .filter(|st| frame.index(st).is_some())
            .map(|st| frame.project(st))
            .collect()
    });
    let filter = Filter {
        reachable: projections.as_ref(),
    };
    let size = size as u64;
    if let Inst::Loop { .. } = inst {
        return check_loop(sys, inst, &frame, &filter, size);
    }
    let mut tried = 0;
    for index in 0..size {
        let mut st = frame.state(&model.init, index);
        if !filter.admits(sys, &frame, &mut st) {
            continue;
        }
        tried += 1;
        if let Some(failure) = inst.check(sys, &st) {
            return InstOutcome::Fails {
                failure,
                valuations: tried,
            };
        }
    }
    InstOutcome::Holds { valuations: tried }
}

/// A loop instance: a cycle in the graph of the frame's valuations.
fn check_loop(sys: &Sys, inst: &Inst, frame: &Frame, filter: &Filter, size: u64) -> InstOutcome {
    let base = &sys.model.init;
    let node = |index: u64| -> Option<QState> {
        let mut st = frame.state(base, index);
        filter.admits(sys, frame, &mut st).then_some(st)
    };
    let mut tried = 0u64;
    let cycle = find_cycle(size as usize, 0..size as usize, |n| {
        let st = node(n as u64)?;
        tried += 1;
        Some(
            inst.loop_edges(sys, &st)
                .into_iter()
                .filter_map(|(k, to)| frame.index(&to).map(|i| (k, i as usize)))
                .collect(),
        )
    });
    match cycle {
        None => InstOutcome::Holds { valuations: tried },
        Some(c) => {
            let start = node(c.start as u64).expect("a node on a cycle is admitted");
            InstOutcome::Fails {
                failure: witness(sys, inst, start, &c.transitions),
                valuations: tried,
            }
        }
    }
}
