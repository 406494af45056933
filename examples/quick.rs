#[allow(unused_imports)]
use reshard::prelude::*;
fn main() {
    for d in reshard::tutor::reproduce::DOCUMENTS {
        let t = std::time::Instant::now();
        let c = reshard::tutor::reproduce::document(d).unwrap();
        println!("{c}\n{:?}\n", t.elapsed());
    }
}
