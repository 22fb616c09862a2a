//! Workers on threads, processes and machines, connected by timely
//! dataflow (Murray, McSherry, Isaacs, Isard, Barham and Abadi, "Naiad: a
//! timely dataflow system", SOSP 2013; the `timely` crate).
//!
//! The search ([`super::distributed`]) runs in rounds. Each round is one
//! timestamp of a small dataflow: an input, an exchange that routes every
//! message to the worker it names, and an operator that empties what
//! arrives into the worker's inbox. A worker ends a round by advancing its
//! input; timely's progress tracking tells it when every worker has ended
//! the round and everything sent in it has arrived, so the rounds need no
//! barrier of their own, and a worker may send for the next round while a
//! slower one is still receiving (the inbox keeps each round's messages
//! apart).
//!
//! The processes connect over TCP themselves (timely's own connection
//! setup waits for ever and prints to stdout) and hand the sockets to
//! timely. Each sends a fingerprint of the model and options it checks, so
//! processes started on different inputs stop at once. A process that
//! dies closes its sockets: timely's receive thread for it panics, the
//! panic reaches every worker, and the run ends naming that process.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::rc::Rc;
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Exchange, Input, Probe};
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

/// Where this process stands in a run over several workers, in timely's
/// terms: workers per process, this process's index, every process's
/// address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// Worker threads per process (at least one).
    pub workers: usize,
    /// This process's index, from 0.
    pub process: usize,
    /// Every process's `host:port`, in process order; empty when the run
    /// has one process.
    pub hosts: Vec<String>,
    /// How long to wait for every process to connect.
    pub connect_timeout: Duration,
}

impl Cluster {
    /// Processes of the run.
    pub fn processes(&self) -> usize {
        self.hosts.len().max(1)
    }

    /// Workers of the run, in all processes.
    pub fn peers(&self) -> usize {
        self.workers * self.processes()
    }

    /// `count` processes on this machine at ports from `port` on (timely's
    /// default is 2101).
    pub fn localhost(count: usize, port: u16) -> Vec<String> {
        (0..count)
            .map(|i| format!("localhost:{}", usize::from(port) + i))
            .collect()
    }
}

/// Why a run over several processes could not start or go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// A process did not connect in time.
    #[error(
        "process {process} ({host}) did not connect within {} s: start every process of the run (`--process 0` to `--process {last}`) with the same host file",
        secs.as_secs()
    )]
    Connect {
        process: usize,
        host: String,
        secs: Duration,
        last: usize,
    },
    /// A process checks something else.
    #[error(
        "process {process} ({host}) checks a different model or different options: every process must run the same command but for `--process`"
    )]
    Mismatch { process: usize, host: String },
    /// A socket could not be opened.
    #[error("process {process} ({host}): {message}")]
    Socket {
        process: usize,
        host: String,
        message: String,
    },
}

impl ClusterError {
    /// The process it is about.
    pub fn process(&self) -> usize {
        match self {
            ClusterError::Connect { process, .. }
            | ClusterError::Mismatch { process, .. }
            | ClusterError::Socket { process, .. } => *process,
        }
    }
}

/// Words per message at most: a worker's queue for another is sent when it
/// holds this many.
const CHUNK: usize = 1 << 15;

/// A message: to, from, words.
type Record = (u32, u32, Vec<u64>);

/// What has arrived: round, sender, words.
type Inbox = Rc<RefCell<Vec<(u64, u32, Vec<u64>)>>>;

/// A worker's end of the exchange: rounds of messages to any worker.
pub struct Net<'w> {
    worker: &'w mut Worker,
    input: InputHandleVec<u64, Record>,
    probe: ProbeHandle<u64>,
    inbox: Inbox,
    out: Vec<Vec<u64>>,
    /// This worker, from 0.
    pub index: usize,
    /// Workers in all.
    pub peers: usize,
}

impl<'w> Net<'w> {
    fn new(worker: &'w mut Worker) -> Net<'w> {
        let (index, peers) = (worker.index(), worker.peers());
        let mut input = InputHandleVec::new();
        let probe = ProbeHandle::new();
        let inbox = Inbox::default();
        let sink = Rc::clone(&inbox);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<Record>>()
                .exchange(|r: &Record| u64::from(r.0))
                // Empties its input into the inbox and sends nothing on: the
                // probe after it passes a round only once the round's
                // messages are in the inbox.
                .unary::<timely::container::CapacityContainerBuilder<Vec<Record>>, _, _, _>(
                    Pipeline,
                    "Inbox",
                    move |_, _| {
                        move |input, _| {
                            input.for_each(|cap, data| {
                                // Our input stamps every message with its round.
                                let t = cap.least().copied().unwrap_or(0);
                                let mut inbox = sink.borrow_mut();
                                inbox.extend(data.drain(..).map(|(_, from, w)| (t, from, w)));
                            });
                        }
                    },
                )
                .probe_with(&probe);
        });
        Net {
            worker,
            input,
            probe,
            inbox,
            out: vec![Vec::new(); peers],
            index,
            peers,
        }
    }

    /// Queues `record` for worker `to`; the queue leaves when it is full.
    pub fn send(&mut self, to: usize, record: &[u64]) {
        let out = &mut self.out[to];
        out.extend_from_slice(record);
        if out.len() >= CHUNK {
            let w = std::mem::take(out);
            self.input.send((to as u32, self.index as u32, w));
            // Lets the message leave and others arrive while this worker
            // goes on producing.
            self.worker.step();
        }
    }

    /// Ends the round: sends what is queued, waits until every worker has
    /// ended it and all it carried has arrived, and returns what arrived for
    /// this worker (sender, words), in no particular order.
    pub fn finish(&mut self) -> Vec<(u32, Vec<u64>)> {
        for to in 0..self.peers {
            if !self.out[to].is_empty() {
                let w = std::mem::take(&mut self.out[to]);
                self.input.send((to as u32, self.index as u32, w));
            }
        }
        let next = *self.input.time() + 1;
        self.input.advance_to(next);
        while self.probe.less_than(self.input.time()) {
            self.worker.step_or_park(Some(Duration::from_millis(1)));
        }
        self.take(next)
    }

    /// What has arrived for the round under way so far, so that a worker
    /// can take it in while it still sends.
    pub fn arrived(&mut self) -> Vec<(u32, Vec<u64>)> {
        self.worker.step();
        self.take(*self.input.time() + 1)
    }

    /// The messages of rounds before `next`. A worker ahead may have sent
    /// for a later round already: those stay.
    fn take(&mut self, next: u64) -> Vec<(u32, Vec<u64>)> {
        let mut inbox = self.inbox.borrow_mut();
        if inbox.iter().all(|m| m.0 >= next) {
            return Vec::new();
        }
        let (now, later): (Vec<_>, Vec<_>) = inbox.drain(..).partition(|m| m.0 < next);
        *inbox = later;
        now.into_iter().map(|(_, from, w)| (from, w)).collect()
    }

    /// A round in which every worker sends `mine` to every worker: every
    /// worker's words, by worker.
    pub fn gather(&mut self, mine: &[u64]) -> Vec<Vec<u64>> {
        for to in 0..self.peers {
            self.send(to, mine);
        }
        let mut all = vec![Vec::new(); self.peers];
        for (from, w) in self.finish() {
            all[from as usize].extend(w);
        }
        all
    }
}

/// Runs `body` on every worker of this process (`cluster.workers` threads)
/// and returns their results in worker order; `fingerprint` identifies what
/// the run checks. A process of the run that dies ends every worker: the
/// error names it.
pub fn run<T: Send + 'static>(
    cluster: &Cluster,
    fingerprint: u64,
    body: &(dyn Fn(&mut Net) -> T + Sync),
) -> Result<Vec<T>, Failure> {
    let refill = timely::communication::Hooks::default().refill;
    let local = ProcessBuilder::new_typed_vector(cluster.workers, refill, None);
    let (builders, guard): (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>) =
        if cluster.processes() == 1 {
            let b = local.into_iter().map(AllocatorBuilder::Process).collect();
            (b, Box::new(()))
        } else {
            let sockets = connect(cluster, fingerprint).map_err(Failure::Start)?;
            let (b, guard) = initialize_networking_from_sockets(
                local,
                sockets,
                cluster.process,
                cluster.workers,
                timely::communication::Hooks::default(),
            )
            .map_err(|e| {
                Failure::Start(ClusterError::Socket {
                    process: cluster.process,
                    host: cluster.hosts[cluster.process].clone(),
                    message: e.to_string(),
                })
            })?;
            (
                b.into_iter().map(AllocatorBuilder::Tcp).collect(),
                Box::new(guard),
            )
        };
    quiet_timely_panics();
    *lock(&LOST) = None;
    // SAFETY: `body` is only called by the workers started below, and every
    // one of them is joined before this function returns: by `join`, or,
    // when unwinding, by the guards' `Drop` (and if starting them fails
    // halfway, the process ends). So the reference outlives
    // every use, which is all the `'static` bound asks of it.
    let body: &'static (dyn Fn(&mut Net) -> T + Sync) = unsafe { std::mem::transmute(body) };
    JOINING.set(true);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let guards = match timely::execute::execute_from(
            builders,
            guard,
            timely::WorkerConfig::default(),
            move |worker| body(&mut Net::new(worker)),
        ) {
            Ok(g) => g,
            // The system refused a thread: the workers started before it
            // are detached, not joined, and would outlive `body`. Nothing
            // but ending the process keeps the promise above.
            Err(e) => {
                eprintln!("error: cannot start the search's worker threads: {e}");
                std::process::abort();
            }
        };
        // Joining the communication threads (when the guards drop) panics
        // if one of them did; that panic is the failure already recorded.
        guards
            .join()
            .into_iter()
            .collect::<Result<Vec<T>, String>>()
    }));
    JOINING.set(false);
    match result {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(message)) => Err(Failure::Lost(lock(&LOST).take().unwrap_or(Lost {
            process: None,
            message,
        }))),
        Err(_) => Err(Failure::Lost(lock(&LOST).take().unwrap_or(Lost {
            process: None,
            message: "a worker stopped".into(),
        }))),
    }
}

/// Why [`run`] did not return the workers' results.
#[derive(Debug)]
pub enum Failure {
    /// The processes could not connect.
    Start(ClusterError),
    /// A process or worker stopped during the run.
    Lost(Lost),
}

/// A process or worker that stopped during a run.
#[derive(Clone, Debug, Default)]
pub struct Lost {
    /// The process whose connection closed, when one did.
    pub process: Option<usize>,
    /// What was seen.
    pub message: String,
}

thread_local! {
    /// Set while this thread joins timely's threads: a panic there repeats
    /// one of theirs.
    static JOINING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The first failure seen by a thread of timely's in this run.
static LOST: Mutex<Option<Lost>> = Mutex::new(None);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Panics of timely's threads (its workers are named `timely:work-N`, its
/// network threads `timely:send-P` and `timely:recv-P`, P the remote
/// process) are how a lost process shows; they are recorded, not printed.
/// Every other panic goes to the hook there was.
fn quiet_timely_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let thread = std::thread::current();
            let name = thread.name().unwrap_or("");
            if !name.starts_with("timely:") && !JOINING.get() {
                return before(info);
            }
            let message = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let process = name
                .strip_prefix("timely:recv-")
                .and_then(|p| p.parse().ok());
            let mut lost = lock(&LOST);
            // The receive thread of the process that died says which one;
            // the panics it causes elsewhere say less.
            if lost
                .as_ref()
                .is_none_or(|l| l.process.is_none() && process.is_some())
            {
                *lost = Some(Lost { process, message });
            }
        }));
    });
}

/// Connects this process to every other: it dials those before it and
/// accepts those after it (timely's convention), each side sending its
/// index and the run's fingerprint. Sockets in process order, `None` at
/// this process.
fn connect(cluster: &Cluster, fingerprint: u64) -> Result<Vec<Option<TcpStream>>, ClusterError> {
    let (me, hosts) = (cluster.process, &cluster.hosts);
    let deadline = Instant::now() + cluster.connect_timeout;
    let timeout = |process: usize| ClusterError::Connect {
        process,
        host: hosts[process].clone(),
        secs: cluster.connect_timeout,
        last: hosts.len() - 1,
    };
    let socket = |process: usize, e: std::io::Error| ClusterError::Socket {
        process,
        host: hosts[process].clone(),
        message: e.to_string(),
    };
    let mut sockets: Vec<Option<TcpStream>> = (0..hosts.len()).map(|_| None).collect();
    let listener = if me + 1 < hosts.len() {
        let l = TcpListener::bind(&hosts[me]).map_err(|e| socket(me, e))?;
        l.set_nonblocking(true).map_err(|e| socket(me, e))?;
        Some(l)
    } else {
        None
    };
    for (p, host) in hosts.iter().enumerate().take(me) {
        let stream = loop {
            let addr = host.to_socket_addrs().ok().and_then(|mut a| a.next());
            if let Some(addr) = addr
                && let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_secs(1))
            {
                break s;
            }
            if Instant::now() >= deadline {
                return Err(timeout(p));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let (stream, _) = hello(stream, me, fingerprint, deadline).map_err(|e| match e {
            Hello::Io(e) => socket(p, e),
            Hello::Mismatch(_) => ClusterError::Mismatch {
                process: p,
                host: host.clone(),
            },
        })?;
        sockets[p] = Some(stream);
    }
    if let Some(listener) = listener {
        while let Some(waiting) = sockets.iter().skip(me + 1).position(Option::is_none) {
            match listener.accept() {
                Ok((stream, _)) => {
                    stream.set_nonblocking(false).map_err(|e| socket(me, e))?;
                    match hello(stream, me, fingerprint, deadline) {
                        Ok((s, p)) => {
                            if p > me && p < hosts.len() && sockets[p].is_none() {
                                sockets[p] = Some(s);
                            }
                        }
                        Err(Hello::Mismatch(p)) if p > me && p < hosts.len() => {
                            return Err(ClusterError::Mismatch {
                                process: p,
                                host: hosts[p].clone(),
                            });
                        }
                        // A stray connection: not one of ours.
                        Err(_) => {}
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        return Err(timeout(me + 1 + waiting));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(socket(me, e)),
            }
        }
    }
    for s in sockets.iter().flatten() {
        s.set_nodelay(true).map_err(|e| socket(me, e))?;
    }
    Ok(sockets)
}

enum Hello {
    Io(std::io::Error),
    /// The peer (this index) checks something else.
    Mismatch(usize),
}

/// Exchanges (index, fingerprint) with the peer, within the deadline;
/// the stream and the peer's index.
fn hello(
    mut s: TcpStream,
    me: usize,
    fingerprint: u64,
    deadline: Instant,
) -> Result<(TcpStream, usize), Hello> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1));
    s.set_read_timeout(Some(left)).map_err(Hello::Io)?;
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&(me as u64).to_le_bytes());
    out[8..].copy_from_slice(&fingerprint.to_le_bytes());
    s.write_all(&out).map_err(Hello::Io)?;
    let mut back = [0u8; 16];
    s.read_exact(&mut back).map_err(Hello::Io)?;
    s.set_read_timeout(None).map_err(Hello::Io)?;
    let peer = u64::from_le_bytes(back[..8].try_into().expect("8 bytes")) as usize;
    if u64::from_le_bytes(back[8..].try_into().expect("8 bytes")) != fingerprint {
        return Err(Hello::Mismatch(peer));
    }
    Ok((s, peer))
}
