//! An open-loop load generator for bench/run.sh (std only: `rustc -O bench/loadgen.rs`).
//!
//! Offers POST hook events at a fixed rate, whatever the server's answers do: each of `--conns`
//! keep-alive connections has a sender thread that writes the requests that are due (by the
//! clock, `rate / conns` a second each, never waiting for an answer: HTTP/1.1 pipelining when the
//! server lags) and a reader thread that counts the answers. Latency is measured from the time a
//! request was *due*, not when it was written, so a stall is not hidden (no coordinated omission).
//!
//! With `--pid`, the server's CPU time (utime + stime of every thread, /proc/<pid>/stat) is read
//! when the measured window starts and again once the server is drained after it: every answer
//! is in and its CPU time has stopped rising (so a write-behind commit is counted), and with
//! `--wal` that file has stopped growing too. CPU per event = that difference / requests offered
//! in the window. The machine's other CPU use over the window (/proc/stat, less the server's and
//! this process's) is printed too: if it is not near zero, the numbers are not clean.
//!
//!   loadgen --port P --path '/hook/claude?key=K' --rate 5000 --seconds 10 --warmup 2 \
//!           --conns 8 --pid PID [--wal FILE] [--sessions 1000] [--blocked-every 2]
//!
//! Prints one line of `key=value` pairs.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Args {
    port: u16,
    path: String,
    rate: f64,
    seconds: f64,
    warmup: f64,
    conns: usize,
    pid: Option<u32>,
    wal: Option<String>,
    sessions: u64,
    blocked_every: u64,
}

fn args() -> Args {
    let mut a = Args {
        port: 0,
        path: String::new(),
        rate: 5000.0,
        seconds: 10.0,
        warmup: 2.0,
        conns: 8,
        pid: None,
        wal: None,
        sessions: 1000,
        blocked_every: 2,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--port" => a.port = value.parse().unwrap(),
            "--path" => a.path = value,
            "--rate" => a.rate = value.parse().unwrap(),
            "--seconds" => a.seconds = value.parse().unwrap(),
            "--warmup" => a.warmup = value.parse().unwrap(),
            "--conns" => a.conns = value.parse().unwrap(),
            "--pid" => a.pid = Some(value.parse().unwrap()),
            "--wal" => a.wal = Some(value),
            "--sessions" => a.sessions = value.parse().unwrap(),
            "--blocked-every" => a.blocked_every = value.parse().unwrap(),
            _ => panic!("unknown flag {flag}"),
        }
    }
    assert!(a.port != 0 && !a.path.is_empty(), "--port and --path are required");
    a
}

/// The same two bodies as bench/post.lua: event n of session n / every % sessions.
fn request(path: &str, n: u64, every: u64, sessions: u64) -> Vec<u8> {
    let session = (n / every) % sessions;
    let body = if n % every == 0 {
        format!(
            r#"{{"hook_event_name":"PermissionRequest","session_id":"bench-{session}","cwd":"/src/app","transcript_path":null,"tool_name":"Bash","tool_input":{{"command":"rm -rf dist"}}}}"#
        )
    } else {
        format!(
            r#"{{"hook_event_name":"PreToolUse","session_id":"bench-{session}","cwd":"/src/app","transcript_path":null,"tool_name":"Bash","tool_input":{{"command":"cargo test"}}}}"#
        )
    };
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// utime + stime of a process (all its threads), in clock ticks.
fn proc_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields[11].parse::<u64>().ok()? + fields[12].parse::<u64>().ok()?)
}

/// The machine's busy and total ticks (all cores), from /proc/stat.
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let line = stat.lines().next().unwrap_or_default();
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

fn wal_size(wal: &Option<String>) -> u64 {
    wal.as_ref().and_then(|w| std::fs::metadata(w).ok()).map_or(0, |m| m.len())
}

fn main() {
    let a = args();
    let hz = 100.0; // USER_HZ: 100 on Linux for every architecture this runs on.
    let start = Instant::now() + Duration::from_millis(50);
    let per_conn = a.rate / a.conns as f64;
    let total = a.warmup + a.seconds;
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let answered = Arc::new(AtomicU64::new(0));
    let window_start = start + Duration::from_secs_f64(a.warmup);
    let window_end = start + Duration::from_secs_f64(total);
    let mut senders = Vec::new();
    let mut readers = Vec::new();
    let sent_in_window = Arc::new(AtomicU64::new(0));
    let max_lag_us = Arc::new(AtomicU64::new(0));
    for c in 0..a.conns {
        let stream = TcpStream::connect(("127.0.0.1", a.port)).expect("connect");
        stream.set_nodelay(true).unwrap();
        let mut writer = stream.try_clone().unwrap();
        let mut reader = stream;
        let due_times: Arc<Mutex<VecDeque<Instant>>> = Arc::new(Mutex::new(VecDeque::new()));
        let (dt, path, sent, siw, lag) =
            (Arc::clone(&due_times), a.path.clone(), Arc::clone(&sent), Arc::clone(&sent_in_window), Arc::clone(&max_lag_us));
        let (every, sessions, conns) = (a.blocked_every, a.sessions, a.conns as u64);
        senders.push(std::thread::spawn(move || {
            let mut i: u64 = 0;
            // Connections start staggered across one interval, so the offered load is even.
            let offset = Duration::from_secs_f64(c as f64 / a.rate);
            let interval = 1.0 / per_conn;
            let mut buf = Vec::with_capacity(64 * 1024);
            loop {
                let due = start + offset + Duration::from_secs_f64(i as f64 * interval);
                if due >= window_end {
                    break;
                }
                let now = Instant::now();
                if due > now {
                    std::thread::sleep(due - now);
                    continue;
                }
                // Everything due by now, in one write.
                buf.clear();
                let mut q = dt.lock().unwrap();
                loop {
                    let due = start + offset + Duration::from_secs_f64(i as f64 * interval);
                    if due > now || due >= window_end {
                        break;
                    }
                    buf.extend_from_slice(&request(&path, i * conns + c as u64, every, sessions));
                    q.push_back(due);
                    if due >= window_start {
                        siw.fetch_add(1, Ordering::Relaxed);
                    }
                    sent.fetch_add(1, Ordering::Relaxed);
                    lag.fetch_max(now.duration_since(due).as_micros() as u64, Ordering::Relaxed);
                    i += 1;
                }
                drop(q);
                if writer.write_all(&buf).is_err() {
                    break;
                }
            }
        }));
        let (dt, answered, stop) = (due_times, Arc::clone(&answered), Arc::clone(&stop));
        readers.push(std::thread::spawn(move || {
            reader.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
            let mark = b"HTTP/1.1 ";
            let mut buf = vec![0u8; 64 * 1024];
            let mut tail: Vec<u8> = Vec::new();
            let mut latencies: Vec<u32> = Vec::new();
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let now = Instant::now();
                        let mut data = std::mem::take(&mut tail);
                        data.extend_from_slice(&buf[..n]);
                        let count = data.windows(mark.len()).filter(|w| w == mark).count();
                        let keep = data.len().min(mark.len() - 1);
                        tail = data[data.len() - keep..].to_vec();
                        let mut q = dt.lock().unwrap();
                        for _ in 0..count {
                            if let Some(due) = q.pop_front() {
                                if due >= window_start {
                                    latencies.push(now.duration_since(due).as_micros().min(u32::MAX as u128) as u32);
                                }
                            }
                        }
                        drop(q);
                        answered.fetch_add(count as u64, Ordering::Relaxed);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
            latencies
        }));
    }
    let pid = a.pid.map(|p| p.to_string());
    // The window opens.
    std::thread::sleep(window_start.saturating_duration_since(Instant::now()));
    let (cpu0, machine0, self0, t0) =
        (pid.as_deref().and_then(proc_ticks), machine_ticks(), proc_ticks("self").unwrap_or(0), Instant::now());
    for s in senders {
        s.join().unwrap();
    }
    let offered_secs = t0.elapsed().as_secs_f64();
    let window_sent = sent_in_window.load(Ordering::Relaxed);
    // Drained: every answer in (or 30 s), then the server's CPU time and the WAL unchanged for 1 s.
    let drain_started = Instant::now();
    while answered.load(Ordering::Relaxed) < sent.load(Ordering::Relaxed) && drain_started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let answers_in = drain_started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<u32> = Vec::new();
    for r in readers {
        latencies.extend(r.join().unwrap());
    }
    let mut stable_since = Instant::now();
    let mut last = (pid.as_deref().and_then(proc_ticks), wal_size(&a.wal));
    if pid.is_some() {
        while stable_since.elapsed() < Duration::from_secs(1) && drain_started.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(100));
            let now = (pid.as_deref().and_then(proc_ticks), wal_size(&a.wal));
            if now != last {
                last = now;
                stable_since = Instant::now();
            }
        }
    }
    let drained = drain_started.elapsed().as_secs_f64();
    // The 1 s of quiet that proved the drain is not the window's, for the machine's other use.
    let (cpu1, machine1, self1) = (last.0, machine_ticks(), proc_ticks("self").unwrap_or(0));
    let wall = offered_secs + drained - 1.0;
    latencies.sort_unstable();
    let pct = |p: f64| -> f64 {
        if latencies.is_empty() {
            return f64::NAN;
        }
        latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)] as f64 / 1000.0
    };
    let server = match (cpu0, cpu1) {
        (Some(a), Some(b)) => (b - a) as f64 / hz,
        _ => f64::NAN,
    };
    let busy = (machine1.0 - machine0.0) as f64 / hz;
    let me = (self1 - self0) as f64 / hz;
    let others = busy - server - me;
    println!(
        "offered_rate={:.0} achieved_rate={:.0} sent_window={} sent_total={} answered_total={} lost={} p50_ms={:.2} p99_ms={:.2} max_ms={:.2} \
         max_send_lag_ms={:.2} server_cpu_s={:.2} cpu_us_per_event={:.1} server_cores={:.3} loadgen_cpu_s={:.2} \
         others_cpu_s={:.2} answers_in_s={:.2} drained_s={:.2}",
        a.rate,
        window_sent as f64 / offered_secs,
        window_sent,
        sent.load(Ordering::Relaxed),
        answered.load(Ordering::Relaxed),
        sent.load(Ordering::Relaxed).saturating_sub(answered.load(Ordering::Relaxed)),
        pct(0.5),
        pct(0.99),
        pct(1.0),
        max_lag_us.load(Ordering::Relaxed) as f64 / 1000.0,
        server,
        server * 1e6 / window_sent as f64,
        server / wall,
        me,
        others,
        answers_in,
        drained,
    );
}
