// Prints the pool rayon's parallel iterators run on (RAYON_NUM_THREADS,
// else std::thread::available_parallelism), then for SECONDS (its argument)
// runs parallel sums, each waiting for all of the pool, and prints the sums
// per second: a program that sizes its pool from what it sees, as rayon does.
use rayon::prelude::*;
use std::time::{Duration, Instant};

fn main() {
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    println!("rayon_threads {}", rayon::current_num_threads());
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut sums = 0u64;
    let mut sink = 0u64;
    while Instant::now() < end {
        sink = sink.wrapping_add((0..2_000_000u64).into_par_iter().map(|x| x.wrapping_mul(x) % 7).sum::<u64>());
        sums += 1;
    }
    let elapsed = start.elapsed().as_secs_f64().max(1e-9);
    println!("sums_per_second {:.1} ({})", sums as f64 / elapsed, sink % 2);
}
