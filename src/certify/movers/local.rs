//! The local level of the movers obligations: each instance at every
//! valuation of its frame (slots, q, the phase bits of its threads),
//! reachable or not, without exploring the system.

use hashbrown::HashSet;

use super::frame::MFrame;
use super::law::{MInst, instances};
use super::system::{MState, MSys};
use crate::certify::copies::Copies;
use crate::certify::cycle::find_cycle;
use crate::certify::law::Failure;
use crate::certify::local::{InstOutcome, Valuations};
use crate::explore::{Budget, Halt, Limit};

/// What the local level found: the instances checked, in report order,
/// with their outcomes, and whether a limit cut the enumeration short.
pub struct Local {
    /// The instances checked and their outcomes.
    pub outcomes: Vec<(MInst, InstOutcome)>,
    /// A limit stopped the enumeration: instances after the last outcome
    /// were never made.
    pub cut: bool,
}

/// Counts one valuation, and the clock.
fn take(valuations: &mut Valuations, budget: &mut Budget) -> Result<(), Halt> {
    if valuations.left == 0 {
        return Err(budget.stop(Limit::States(valuations.limit)));
    }
    valuations.left -= 1;
    budget.tick()
}

/// Checks every instance at the local level. With `reachable`, only
/// valuations that some state of `reachable` projects to are tried (the
/// tests compare the two levels on the same states this way). With
/// `one_copy` (and without `reachable`), one point of each class of alike
/// points of the procedures' copies is checked, with the return points'
/// values narrowed, where [`MSys::copies`] allows it.
pub fn run(
    msys: &MSys,
    bound: u64,
    reachable: Option<&[MState]>,
    one_copy: bool,
    budget: &mut Budget,
    valuations: &mut Valuations,
) -> Local {
    let copies = msys.copies().filter(|_| one_copy && reachable.is_none());
    let mut local = Local {
        outcomes: Vec::new(),
        cut: false,
    };
    let each = std::mem::size_of::<(MInst, InstOutcome)>() as u64;
    instances(msys, copies, &mut |inst| {
        let Some(inst) = inst else {
            let go_on = budget.hit.is_none() && budget.tick().is_ok();
            local.cut |= !go_on;
            return go_on;
        };
        let outcome = match budget.afford(each) {
            Ok(()) if budget.hit.is_none() => {
                budget.exp_bytes += each;
                check(msys, &inst, bound, reachable, copies, budget, valuations)
                    .unwrap_or(InstOutcome::Stopped)
            }
            _ => InstOutcome::Stopped,
        };
        local.outcomes.push((inst, outcome));
        true
    });
    local
}

fn check(
    msys: &MSys,
    inst: &MInst,
    bound: u64,
    reachable: Option<&[MState]>,
    copies: Option<&Copies>,
    budget: &mut Budget,
    valuations: &mut Valuations,
) -> Result<InstOutcome, Halt> {
    let Some(mut frame) = inst.frame(msys) else {
        take(valuations, budget)?;
        return Ok(match inst.check(msys, &msys.init()) {
            Some(failure) => InstOutcome::Fails {
                failure,
                valuations: 1,
            },
            None => InstOutcome::Holds { valuations: 1 },
        });
    };
    if let Some(c) = copies {
        inst.narrow(msys, c, &mut frame);
    }
    let size = frame.size();
    if size > u128::from(bound) {
        return Ok(InstOutcome::NotChecked { frame: size });
    }
    if let Some(states) = reachable {
        let each = 48 + 8 * (frame.frame.slots.len() + frame.phases.len()) as u64;
        budget.afford(states.len() as u64 * each)?;
    }
    let projections: Option<HashSet<Vec<i64>>> = reachable.map(|states| {
        states
            .iter()
            .filter(|m| frame.covers(m))
            .map(|m| frame.project(m))
            .collect()
    });
    let size = size as u64;
    if let MInst::Loop { .. } = inst {
        return check_loop(
            msys,
            inst,
            &frame,
            projections.as_ref(),
            size,
            budget,
            valuations,
        );
    }
    let mut tried = 0;
    for index in 0..size {
        let mut m = frame.state(msys, index);
        take(valuations, budget)?;
        if !frame.admits(msys, projections.as_ref(), &mut m) {
            continue;
        }
        tried += 1;
        if let Some(failure) = inst.check(msys, &m) {
            return Ok(InstOutcome::Fails {
                failure,
                valuations: tried,
            });
        }
    }
    Ok(InstOutcome::Holds { valuations: tried })
}

/// A loop instance: a cycle in the graph of the frame's valuations.
fn check_loop(
    msys: &MSys,
    inst: &MInst,
    frame: &MFrame,
    reachable: Option<&HashSet<Vec<i64>>>,
    size: u64,
    budget: &mut Budget,
    valuations: &mut Valuations,
) -> Result<InstOutcome, Halt> {
    let node = |index: u64| -> Option<MState> {
        let mut m = frame.state(msys, index);
        frame.admits(msys, reachable, &mut m).then_some(m)
    };
    let mut tried = 0u64;
    let mut out_of_valuations = false;
    let cycle = find_cycle(
        size as usize,
        0..size as usize,
        |n| {
            if valuations.left == 0 {
                out_of_valuations = true;
                return None;
            }
            valuations.left -= 1;
            let m = node(n as u64)?;
            tried += 1;
            Some(
                inst.loop_edges(msys, &m)
                    .into_iter()
                    .filter_map(|(k, to)| frame.index(&to).map(|i| (k, i as usize)))
                    .collect(),
            )
        },
        budget,
    )?;
    match cycle {
        Some(c) => match node(c.start as u64) {
            Some(start) => Ok(InstOutcome::Fails {
                failure: lasso(msys, inst, &start, &c.transitions),
                valuations: tried,
            }),
            None => Ok(InstOutcome::NotChecked {
                frame: u128::from(size),
            }),
        },
        None if out_of_valuations => Err(budget.stop(Limit::States(valuations.limit))),
        None => Ok(InstOutcome::Holds { valuations: tried }),
    }
}

/// The failure of a loop instance for a cycle of `transitions` from
/// `start`, replayed so that every state shown is exact.
pub fn lasso(msys: &MSys, inst: &MInst, start: &MState, transitions: &[usize]) -> Failure {
    let mut cur = start.clone();
    let mut steps = Vec::new();
    for &k in transitions {
        if let Some(to) = msys.step(k, &cur) {
            cur = to;
        }
        steps.push((k, cur.clone()));
    }
    inst.loop_failure(msys, start, &steps)
}
