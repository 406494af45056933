//! Live servers held by a child test process, for the tests that SIGKILL
//! their owner: the child prints the servers' footprint (pid and directory
//! of each) and waits to be killed; the parent reads it back and checks
//! that nothing is left. And [`installed`], which says whether the
//! servers a test file needs are there.

use reshard::live::process_alive;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Within 10 s, every process of the footprint has exited, its directory is
/// gone, and no process's command line names the directory (a child the
/// program forked, such as an nginx worker).
pub fn assert_gone(left: &[(u32, PathBuf)]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let alive: Vec<&(u32, PathBuf)> = left
            .iter()
            .filter(|(pid, dir)| process_alive(*pid) || dir.exists() || pgrep(&dir.display().to_string()))
            .collect();
        if alive.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "left behind: {alive:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Some process's command line names the path `dir` (itself or a file in it): not merely a
/// longer name that starts with it (`…-1` is not `…-10`, a directory another test made).
fn pgrep(dir: &str) -> bool {
    let escaped: String = dir
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "/_-".contains(c) { c.to_string() } else { format!("\\{c}") })
        .collect();
    let pattern = format!("{escaped}(/| |$)");
    Command::new("pgrep").args(["-f", "--", &pattern]).stdout(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// In the child: print `FOOTPRINT pid=dir …` for the parent, then wait to
/// be killed.
pub fn print_and_wait(footprint: &[(u32, PathBuf)]) {
    let parts: Vec<String> = footprint.iter().map(|(p, d)| format!("{p}={}", d.display())).collect();
    println!("FOOTPRINT {}", parts.join(" "));
    std::thread::sleep(Duration::from_secs(120));
}

/// In the parent: run this test binary's ignored test `holder` (which
/// returns at once unless `env` is set) in a child process, and return the
/// child with the footprint it printed.
pub fn start_holder(holder: &str, env: &str) -> (Child, Vec<(u32, PathBuf)>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", holder, "--ignored", "--nocapture", "--test-threads=1"])
        .env(env, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut held = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        // libtest prints "test <holder> ... " before it.
        if let Some((_, rest)) = line.split_once("FOOTPRINT ") {
            for part in rest.split_whitespace() {
                let (pid, dir) = part.split_once('=').unwrap();
                held.push((pid.parse::<u32>().unwrap(), PathBuf::from(dir)));
            }
            break;
        }
    }
    (child, held)
}

/// Whether the programs are installed, from their version lookup: false
/// (after saying why) when one is missing and this is not CI; under
/// `CI=true` a missing program fails the run, and any other error always
/// does.
pub fn installed<T>(found: reshard::Result<T>) -> bool {
    match found {
        Ok(_) => true,
        Err(e @ reshard::Error::ProgramMissing { .. }) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but {e}");
            }
            eprintln!("skipped: {e}");
            false
        }
        Err(e) => panic!("{e}"),
    }
}
