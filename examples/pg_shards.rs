//! Timings of the live PostgreSQL shards (labs 09 and 10): start-up of a
//! coordinator and N shards, `initdb` against copying its result, loading
//! rows through the coordinator, a split. Medians of `--runs` runs (5).
//!
//!     cargo run --release --no-default-features --features postgres --example pg_shards [-- --runs 5 --shards 4 --rows 100000]

use reshard::live::{Bound, PgShards, TableSpec};
use reshard::KeySet;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() -> Result<(), reshard::Error> {
    let (runs, n, rows) = (arg("--runs", 5), arg("--shards", 4), arg("--rows", 100_000));
    println!("PostgreSQL {}; {runs} runs, {n} shards + a coordinator, {rows} rows", reshard::live::pg_version()?);
    let names: Vec<String> = (0..n).map(|i| ((b'A' + i as u8) as char).to_string()).collect();
    let keys = KeySet::new("key", rows);
    let (mut start, mut load, mut split, mut stop, mut query) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..runs {
        let t = Instant::now();
        let mut pg = PgShards::start(names.clone())?;
        start.push(t.elapsed().as_secs_f64());
        let cut = Bound::text("key5");
        let spec = TableSpec::by_key(
            "t",
            [(Bound::Min, cut.clone(), names[0].as_str()), (cut, Bound::Max, names[n - 1].as_str())],
        )?;
        pg.create(&spec)?;
        for _ in 0..20 {
            let t = Instant::now();
            pg.query("A", "SELECT 1")?;
            query.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let t = Instant::now();
        pg.insert("t", &keys)?;
        load.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let s = pg.split("t", &Bound::text("key7"), &names[n / 2])?;
        split.push(t.elapsed().as_secs_f64() / s.moved().max(1) as f64 * 1e6);
        let t = Instant::now();
        drop(pg);
        stop.push(t.elapsed().as_secs_f64());
    }
    println!("start {n} shards + coordinator (one initdb, copied): {:.2} s", median(start));
    println!("one query (a psql run, connect to result):       {:.1} ms", median(query));
    println!("insert {rows} rows through the coordinator:        {:.2} s", median(load));
    println!("split, per row moved:                            {:.1} µs", median(split));
    println!("drop (every server stopped, directories gone):    {:.2} s", median(stop));
    Ok(())
}
