//! Full exploration: every enabled transition of every thread.

use super::search::{Expand, Found, StepResult, Watch, step_watched};
use crate::model::Model;

/// Expands a state by every enabled transition, in thread order.
pub struct Full<'m> {
    model: &'m Model,
    out: Vec<i64>,
    /// What the search watches besides the semantics.
    pub watch: Watch,
}

impl<'m> Full<'m> {
    /// The full expander of `model`.
    pub fn new(model: &'m Model) -> Full<'m> {
        Full {
            model,
            out: Vec::new(),
            watch: Watch::default(),
        }
    }
}

impl Expand for Full<'_> {
    fn watch(&mut self) -> Option<&mut Watch> {
        Some(&mut self.watch)
    }

    fn expand(&mut self, s: &[i64], emit: &mut dyn FnMut(&[i64], &[u32])) -> Result<bool, Found> {
        let all = vec![true; self.model.threads.len()];
        self.expand_threads(s, &all, emit)
    }
}

impl Full<'_> {
    /// [`Expand::expand`] restricted to the threads in `set`.
    pub fn expand_threads(
        &mut self,
        s: &[i64],
        set: &[bool],
        emit: &mut dyn FnMut(&[i64], &[u32]),
    ) -> Result<bool, Found> {
        let mut enabled = false;
        for (t, thread) in self.model.threads.iter().enumerate() {
            if !set[t] {
                continue;
            }
            for k in thread.points[s[t] as usize].transitions.clone() {
                match step_watched(self.model, k, s, &mut self.out, &mut self.watch) {
                    StepResult::Disabled => {}
                    StepResult::Ok => {
                        enabled = true;
                        emit(&self.out, &[k as u32]);
                    }
                    StepResult::Bad(problem) => {
                        return Err(Found {
                            problem,
                            path: vec![k as u32],
                        });
                    }
                }
            }
        }
        Ok(enabled)
    }
}
