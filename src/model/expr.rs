//! Compiled expressions and commands, and their evaluation over a state.
//!
//! A state is a slice of `i64`: the program counters of the threads first,
//! then one slot per scalar variable (array elements are consecutive slots).
//! Booleans are 0/1 and a lock holds its owner's id or [`FREE`].

use std::ops::Range;

use crate::syntax::ast::BinOp;

/// The value of a lock that no thread owns.
pub const FREE: i64 = -1;

/// An array variable: consecutive slots, read by [`CExpr::Elem`] and
/// written through [`Place::Elem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Array {
    /// The slot of element 0.
    pub base: u32,
    /// The number of elements.
    pub len: u32,
    /// Whether it is shared (not local): its accesses are observed.
    pub shared: bool,
}

impl Array {
    /// The slot of element `index`, or an index fault.
    pub fn slot(&self, index: i64) -> Result<u32, Fault> {
        let Array { base, len, .. } = *self;
        if (0..i64::from(len)).contains(&index) {
            Ok(base + index as u32)
        } else {
            Err(Fault::Index { base, len, index })
        }
    }

    /// The slots of all its elements.
    pub fn slots(&self) -> Range<u32> {
        self.base..self.base + self.len
    }
}

/// A resolved expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CExpr {
    /// A constant.
    Const(i64),
    /// A scalar slot; `shared` when it is a shared (non-local) variable,
    /// whose reads are reported to the [`Access`] observer.
    Var {
        /// The slot.
        slot: u32,
        /// Whether it is shared (not local): its accesses are observed.
        shared: bool,
    },
    /// An array element `array[index]`.
    Elem {
        /// The array.
        array: Array,
        /// The index.
        index: Box<CExpr>,
    },
    /// `at(t, L)` for a thread computed at run time: `pcs[t]` is the
    /// control point of `L` in thread t, if it has one.
    At {
        /// The thread.
        thread: Box<CExpr>,
        /// The control point of the label in each thread, if it has one.
        pcs: Vec<Option<i64>>,
    },
    /// `t.r` for a thread computed at run time: `slots[t]` is the slot of
    /// the local r in thread t, if its body has one. A thread without one,
    /// or a value that is no thread, faults ([`Fault::NoLocal`]), like an
    /// index out of range.
    LocalOf {
        /// The thread.
        thread: Box<CExpr>,
        /// The slot of the local in each thread, if it has one.
        slots: Vec<Option<u32>>,
    },
    /// A quantified variable, by index into the environment.
    Bound(u32),
    /// `!e`
    Not(Box<CExpr>),
    /// `-e`
    Neg(Box<CExpr>),
    /// `a op b`
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
    /// `exists`/`forall v in lo..hi: body`
    Quant(Quantified),
}

/// `exists`/`forall v in lo..hi: body`, compiled: a struct of its own so
/// that the walkers over expressions name it in one pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantified {
    /// `forall` (else `exists`).
    pub forall: bool,
    /// The environment index of the bound variable.
    pub var: u32,
    /// The lowest value.
    pub lo: Box<CExpr>,
    /// The highest value.
    pub hi: Box<CExpr>,
    /// The predicate.
    pub body: Box<CExpr>,
}

impl Quantified {
    /// The ends of its range and its body, in the order they are evaluated.
    pub fn parts(&self) -> [&CExpr; 3] {
        [&self.lo, &self.hi, &self.body]
    }

    /// Whether the body holds for every value of the range (`forall`), or
    /// for some (`exists`): the first value that decides it stops the loop.
    fn eval<A: Access>(&self, s: &[i64], env: &mut Vec<i64>, acc: &mut A) -> Result<bool, Fault> {
        let (lo, hi) = (self.lo.eval(s, env, acc)?, self.hi.eval(s, env, acc)?);
        let k = self.var as usize;
        if env.len() <= k {
            env.resize(k + 1, 0);
        }
        for v in lo..=hi {
            env[k] = v;
            if (self.body.eval(s, env, acc)? != 0) != self.forall {
                return Ok(!self.forall);
            }
        }
        Ok(self.forall)
    }
}

/// A place written by an assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A scalar slot.
    Slot {
        /// The slot.
        slot: u32,
        /// Whether it is shared (not local): its accesses are observed.
        shared: bool,
    },
    /// An array element.
    Elem {
        /// The array.
        array: Array,
        /// The index.
        index: CExpr,
    },
}

/// A command: the `c` of a transition `g -> c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// Simultaneous assignment: every right-hand side and index is evaluated
    /// before anything is written.
    Assign(Vec<(Place, CExpr)>),
    /// `assert e`
    Assert(CExpr),
    /// `if c { } else { }` inside `atomic`.
    If(CExpr, Vec<Cmd>, Vec<Cmd>),
}

/// Why a transition could not complete, or why a state is bad.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A value written outside its variable's range.
    Range {
        /// The slot.
        slot: u32,
        /// The value it would have taken.
        value: i64,
    },
    /// An array index outside the array.
    Index {
        /// The slot of element 0.
        base: u32,
        /// The number of elements.
        len: u32,
        /// The index used.
        index: i64,
    },
    /// Division or remainder by zero.
    DivZero,
    /// Integer overflow in an intermediate value.
    Overflow,
    /// `assert` failed.
    Assert,
    /// An access to a protected variable by a thread whose exclusive access
    /// predicate is false in the state the transition started from.
    Discipline {
        /// The slot.
        slot: u32,
        /// A write (else a read).
        write: bool,
    },
    /// `t.r` read with a t that is no thread, or a thread whose body has
    /// no local r.
    NoLocal {
        /// The value of t.
        thread: i64,
        /// A slot of r in some thread, which names the local.
        local: u32,
    },
    /// A call from a frame at the deepest depth the stack may have
    /// (`--max-stack`): not a violation of the model, but the end of what
    /// the checker can explore, so the run is inconclusive.
    StackBound {
        /// The bound.
        bound: u32,
    },
}

/// Observes the accesses to shared variables made by a transition (the
/// discipline looks at the protected ones).
pub trait Access {
    /// Called for every read or write of a shared slot; an error aborts
    /// the transition.
    fn access(&mut self, slot: u32, write: bool) -> Result<(), Fault>;
}

/// Ignores accesses: for guards, invariants and predicates, whose reads are
/// not accesses in the sense of the discipline.
pub struct NoAccess;

impl Access for NoAccess {
    fn access(&mut self, _: u32, _: bool) -> Result<(), Fault> {
        Ok(())
    }
}

impl CExpr {
    /// Evaluates `self` in state `s`; `env` holds quantified variables.
    pub fn eval<A: Access>(
        &self,
        s: &[i64],
        env: &mut Vec<i64>,
        acc: &mut A,
    ) -> Result<i64, Fault> {
        Ok(match self {
            CExpr::Const(v) => *v,
            CExpr::Var { slot, shared } => {
                if *shared {
                    acc.access(*slot, false)?;
                }
                s[*slot as usize]
            }
            CExpr::Elem { array, index } => {
                let slot = array.slot(index.eval(s, env, acc)?)?;
                if array.shared {
                    acc.access(slot, false)?;
                }
                s[slot as usize]
            }
            CExpr::At { thread, pcs } => {
                let t = thread.eval(s, env, acc)?;
                match usize::try_from(t)
                    .ok()
                    .and_then(|t| pcs.get(t).map(|p| (t, p)))
                {
                    Some((t, Some(pc))) => i64::from(s[t] == *pc),
                    _ => 0,
                }
            }
            CExpr::LocalOf { thread, slots } => {
                let t = thread.eval(s, env, acc)?;
                match usize::try_from(t).ok().and_then(|t| slots.get(t)) {
                    Some(Some(slot)) => s[*slot as usize],
                    _ => {
                        return Err(Fault::NoLocal {
                            thread: t,
                            local: slots.iter().flatten().copied().next().unwrap_or(0),
                        });
                    }
                }
            }
            CExpr::Bound(k) => env[*k as usize],
            CExpr::Not(a) => i64::from(a.eval(s, env, acc)? == 0),
            CExpr::Neg(a) => a.eval(s, env, acc)?.checked_neg().ok_or(Fault::Overflow)?,
            CExpr::Bin(op, a, b) => {
                let x = a.eval(s, env, acc)?;
                // Short-circuit: `m != free && x[m] == 0` must not index with `free`.
                match op {
                    BinOp::And if x == 0 => return Ok(0),
                    BinOp::Or if x != 0 => return Ok(1),
                    _ => {}
                }
                let y = b.eval(s, env, acc)?;
                binop(*op, x, y)?
            }
            CExpr::Quant(q) => i64::from(q.eval(s, env, acc)?),
        })
    }

    /// Evaluates a condition with no quantified variables in scope.
    pub fn holds<A: Access>(&self, s: &[i64], acc: &mut A) -> Result<bool, Fault> {
        Ok(self.eval(s, &mut Vec::new(), acc)? != 0)
    }

    /// Calls `f` on every slot the expression may read, including protected
    /// ones and array elements (all of them, when the index is dynamic).
    pub fn for_each_slot(&self, f: &mut impl FnMut(u32)) {
        match self {
            CExpr::Const(_) | CExpr::Bound(_) => {}
            CExpr::Var { slot, .. } => f(*slot),
            CExpr::Elem { array, index } => {
                index.for_each_slot(f);
                array.slots().for_each(&mut *f);
            }
            CExpr::At { thread, pcs } => {
                thread.for_each_slot(f);
                for (t, pc) in pcs.iter().enumerate() {
                    if pc.is_some() {
                        f(t as u32);
                    }
                }
            }
            CExpr::LocalOf { thread, slots } => {
                thread.for_each_slot(f);
                slots.iter().flatten().copied().for_each(&mut *f);
            }
            CExpr::Not(a) | CExpr::Neg(a) => a.for_each_slot(f),
            CExpr::Bin(_, a, b) => {
                a.for_each_slot(f);
                b.for_each_slot(f);
            }
            CExpr::Quant(q) => q.parts().into_iter().for_each(|e| e.for_each_slot(f)),
        }
    }
}

/// Applies a binary operator; booleans are 0/1.
pub fn binop(op: BinOp, x: i64, y: i64) -> Result<i64, Fault> {
    use BinOp::*;
    Ok(match op {
        Or => i64::from(x != 0 || y != 0),
        And => i64::from(x != 0 && y != 0),
        Eq => i64::from(x == y),
        Ne => i64::from(x != y),
        Lt => i64::from(x < y),
        Le => i64::from(x <= y),
        Gt => i64::from(x > y),
        Ge => i64::from(x >= y),
        Add => x.checked_add(y).ok_or(Fault::Overflow)?,
        Sub => x.checked_sub(y).ok_or(Fault::Overflow)?,
        Mul => x.checked_mul(y).ok_or(Fault::Overflow)?,
        Div | Mod if y == 0 => return Err(Fault::DivZero),
        Div => x.checked_div(y).ok_or(Fault::Overflow)?,
        Mod => x.checked_rem(y).ok_or(Fault::Overflow)?,
    })
}

impl Place {
    /// Resolves the place to a slot in state `s`.
    fn slot<A: Access>(&self, s: &[i64], acc: &mut A) -> Result<(u32, bool), Fault> {
        match self {
            Place::Slot { slot, shared } => Ok((*slot, *shared)),
            Place::Elem { array, index } => {
                let i = index.eval(s, &mut Vec::new(), acc)?;
                Ok((array.slot(i)?, array.shared))
            }
        }
    }

    /// Calls `f` on every slot this place may denote, and every slot its index reads.
    pub fn for_each_slot(&self, reads: &mut impl FnMut(u32), writes: &mut impl FnMut(u32)) {
        match self {
            Place::Slot { slot, .. } => writes(*slot),
            Place::Elem { array, index } => {
                index.for_each_slot(reads);
                array.slots().for_each(writes);
            }
        }
    }
}

/// Runs commands on the working state `s`, checking each write against the
/// range `bounds[slot]`.
pub fn exec<A: Access>(
    cmds: &[Cmd],
    s: &mut [i64],
    bounds: &[(i64, i64)],
    acc: &mut A,
) -> Result<(), Fault> {
    for c in cmds {
        match c {
            Cmd::Assign(parts) => {
                if let [(place, e)] = parts.as_slice() {
                    let v = e.eval(s, &mut Vec::new(), acc)?;
                    let (slot, shared) = place.slot(s, acc)?;
                    write(s, bounds, slot, shared, v, acc)?;
                } else {
                    let mut staged = Vec::with_capacity(parts.len());
                    for (place, e) in parts {
                        let v = e.eval(s, &mut Vec::new(), acc)?;
                        staged.push((place.slot(s, acc)?, v));
                    }
                    for ((slot, shared), v) in staged {
                        write(s, bounds, slot, shared, v, acc)?;
                    }
                }
            }
            Cmd::Assert(e) => {
                if !e.holds(s, acc)? {
                    return Err(Fault::Assert);
                }
            }
            Cmd::If(c, then, els) => {
                let branch = if c.holds(s, acc)? { then } else { els };
                exec(branch, s, bounds, acc)?;
            }
        }
    }
    Ok(())
}

fn write<A: Access>(
    s: &mut [i64],
    bounds: &[(i64, i64)],
    slot: u32,
    shared: bool,
    v: i64,
    acc: &mut A,
) -> Result<(), Fault> {
    if shared {
        acc.access(slot, true)?;
    }
    let (lo, hi) = bounds[slot as usize];
    if v < lo || v > hi {
        return Err(Fault::Range { slot, value: v });
    }
    s[slot as usize] = v;
    Ok(())
}

impl Cmd {
    /// Calls `reads`/`writes` on every slot the command may read or write.
    pub fn for_each_slot(&self, reads: &mut impl FnMut(u32), writes: &mut impl FnMut(u32)) {
        match self {
            Cmd::Assign(parts) => {
                for (p, e) in parts {
                    e.for_each_slot(reads);
                    p.for_each_slot(reads, writes);
                }
            }
            Cmd::Assert(e) => e.for_each_slot(reads),
            Cmd::If(c, a, b) => {
                c.for_each_slot(reads);
                for x in a.iter().chain(b) {
                    x.for_each_slot(reads, writes);
                }
            }
        }
    }
}
