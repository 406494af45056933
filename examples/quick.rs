fn main() {
    for d in reshard::reproduce::DOCUMENTS {
        let t = std::time::Instant::now();
        let c = reshard::reproduce::document(d).unwrap();
        println!("{c}\n{:?}\n", t.elapsed());
    }
}
