//! Writes to one path, one at a time. A write reads the file, computes the new text and writes it,
//! with host calls (awaits) in between; two overlapping writes of one file (an MCP client may send
//! calls concurrently) would each start from the same content, and the second would undo the
//! first while both reported success. Here each waits for the previous one to finish, in the
//! order they came, so the next one starts from what the previous one wrote.

use futures::lock::Mutex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::Rc;

#[derive(Default)]
pub(crate) struct PathLocks {
    /// One lock per path with a write running or waiting; dropped when the last one is done.
    locks: RefCell<HashMap<String, Rc<Mutex<()>>>>,
}

impl PathLocks {
    /// Run `work` once no other work holds `path`, and hold it meanwhile.
    pub(crate) async fn serialize<T>(&self, path: &str, work: impl Future<Output = T>) -> T {
        let lock = self.locks.borrow_mut().entry(path.to_string()).or_default().clone();
        let result = {
            let _held = lock.lock().await;
            work.await
        };
        // The map's and ours are the only references: nobody else is waiting.
        if Rc::strong_count(&lock) == 2 {
            self.locks.borrow_mut().remove(path);
        }
        result
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.locks.borrow().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use futures::future::{join_all, poll_fn};
    use std::cell::Cell;
    use std::task::Poll;

    /// Yields once to the executor, so that concurrent tasks interleave.
    async fn yield_now() {
        let mut yielded = false;
        poll_fn(|cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await
    }

    #[test]
    fn overlapping_work_on_one_path_runs_one_at_a_time_in_order() {
        let locks = PathLocks::default();
        let value = Cell::new(0);
        let order = RefCell::new(Vec::new());
        let (value, order) = (&value, &order);
        let tasks = (0..10).map(|i| {
            locks.serialize("/ws/a.txt", async move {
                // A read, an await, a write: the lost update this prevents.
                let read = value.get();
                yield_now().await;
                value.set(read + 1);
                order.borrow_mut().push(i);
            })
        });
        block_on(join_all(tasks));
        assert_eq!(value.get(), 10);
        assert_eq!(*order.borrow(), (0..10).collect::<Vec<_>>());
        assert_eq!(locks.len(), 0, "no lock is kept once the work is done");
    }

    #[test]
    fn different_paths_do_not_wait_for_each_other() {
        let locks = PathLocks::default();
        let started = Cell::new(0);
        let both_running = Cell::new(false);
        let task = |path: &'static str| {
            let (started, both_running) = (&started, &both_running);
            locks.serialize(path, async move {
                started.set(started.get() + 1);
                yield_now().await;
                yield_now().await;
                if started.get() == 2 {
                    both_running.set(true);
                }
            })
        };
        block_on(futures::future::join(task("/ws/a"), task("/ws/b")));
        assert!(both_running.get());
    }
}
