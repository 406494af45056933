//! twemproxy and nginx reproduced key for key: the hashes against published
//! vectors and an independent python3 computation, and every placement
//! against traces recorded from the real programs (nutcracker 0.5.0, nginx
//! 1.22.1) by `scripts/record_proxies.py` into `tests/data/proxies/`.

use reshard::schemes::hashkit::crc32;
use reshard::{HashWidth, Ketama, Key, KeySet, Locate, NginxHash, Placement, TwemDistribution, TwemHash, Twemproxy};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

// ------------------------------------------------------------ hashes --

/// Published vectors: FNV's test suite (FNV-1/FNV-1a of "a" and "foobar",
/// 32 and 64 bits, the 64-bit ones cut to their low half as twemproxy
/// does), CRC-32's and CRC16-XMODEM's check value of "123456789",
/// one-at-a-time's Wikipedia examples.
#[test]
fn hashes_match_published_vectors() {
    let cases: [(TwemHash, &str, u32); 12] = [
        (TwemHash::Fnv1a32, "a", 0xe40c_292c),
        (TwemHash::Fnv1a32, "foobar", 0xbf9c_f968),
        (TwemHash::Fnv1_32, "a", 0x050c_5d7e),
        (TwemHash::Fnv1_32, "foobar", 0x31f0_b262),
        (TwemHash::Fnv1a64, "a", 0xaf63_dc4c_8601_ec8c_u64 as u32),
        (TwemHash::Fnv1a64, "foobar", 0x8594_4171_f739_67e8_u64 as u32),
        (TwemHash::Fnv1_64, "a", 0xaf63_bd4c_8601_b7be_u64 as u32),
        (TwemHash::Fnv1_64, "foobar", 0x340d_8765_a4dd_a9c2_u64 as u32),
        (TwemHash::Crc32a, "123456789", 0xcbf4_3926),
        (TwemHash::Crc32, "123456789", (0xcbf4_3926 >> 16) & 0x7fff),
        (TwemHash::OneAtATime, "a", 0xca2e_9442),
        (TwemHash::OneAtATime, "The quick brown fox jumps over the lazy dog", 0x519e_91f5),
    ];
    for (h, key, want) in cases {
        assert_eq!(h.hash(key.as_bytes()), want, "{h}({key:?})");
    }
    assert_eq!(TwemHash::Crc16.hash(b"123456789") & 0xffff, 0x31c3);
    assert_eq!(crc32(b"The quick brown fox jumps over the lazy dog"), 0x414f_a339);
}

/// Every hash on 7 keys, computed with an independent python3 3.11.7
/// implementation of each C function (bytes read as signed `char` where the
/// C code reads `char`; `zlib.crc32` and `hashlib.md5` for the CRC-32 and
/// md5 ones), e.g.:
/// ```python
/// M = 0xffffffff
/// def sc(b): return (b - 256 if b >= 128 else b) & M
/// def fnv(k, init, prime, a):
///     h = init
///     for b in k:
///         h = ((h ^ sc(b)) * prime) & M if a else ((h * prime) & M) ^ sc(b)
///     return h
/// def murmur(k):
///     m = 0x5bd1e995; n = len(k); h = ((0xdeadbeef * n) ^ n) & M; i = 0
///     while n - i >= 4:
///         x = int.from_bytes(k[i:i+4], 'little') * m & M; x ^= x >> 24; x = x * m & M
///         h = (h * m & M) ^ x; i += 4
///     if k[i:]: h ^= int.from_bytes(k[i:], 'little'); h = h * m & M
///     h ^= h >> 13; h = h * m & M; return h ^ (h >> 15)
/// # one_at_a_time, hsieh, jenkins (lookup3, initval 13), crc16 likewise
/// KEYS = ["", "a", "foobar", "key:0", "ключ", "abcdefghijklm", "zé"]
/// ```
#[test]
fn hashes_match_an_independent_python_computation() {
    const KEYS: [&str; 7] = ["", "a", "foobar", "key:0", "ключ", "abcdefghijklm", "zé"];
    let table: [(TwemHash, [u32; 7]); 12] = [
        (TwemHash::OneAtATime, [0x00000000, 0xca2e9442, 0xf952fde7, 0xc0d4cec1, 0xfbca080a, 0x6d99f6dc, 0xc9c00e4c]),
        (TwemHash::Md5, [0xd98c1dd4, 0xb975c10c, 0x22f65838, 0x82ab86df, 0x667b65c3, 0xd1bdae22, 0x6e391acd]),
        (TwemHash::Crc16, [0x00000000, 0x00007c87, 0x9effb025, 0x70128a20, 0x3c55683f, 0x72b79537, 0xdf0e780d]),
        (TwemHash::Crc32, [0x00000000, 0x000068b7, 0x00001ef6, 0x00007c68, 0x00000caf, 0x00005df4, 0x000069fa]),
        (TwemHash::Crc32a, [0x00000000, 0xe8b7be43, 0x9ef61f95, 0x7c680b7a, 0x0caf961a, 0xddf46ea2, 0xe9faab55]),
        (TwemHash::Fnv1_64, [0x84222325, 0x8601b7be, 0xa4dda9c2, 0xfdc93304, 0x64997a19, 0x3df1e6a2, 0x6b67c0bd]),
        (TwemHash::Fnv1a64, [0x84222325, 0x8601ec8c, 0xf73967e8, 0x962f5916, 0xa9ad7881, 0x398bc308, 0x88506019]),
        (TwemHash::Fnv1_32, [0x811c9dc5, 0x050c5d7e, 0x31f0b262, 0x8964f7a4, 0x31b3eff9, 0xe589b522, 0x745e13dd]),
        (TwemHash::Fnv1a32, [0x811c9dc5, 0xe40c292c, 0xbf9cf968, 0x57140e16, 0xafd617e1, 0x3b8356e8, 0x7c055839]),
        (TwemHash::Hsieh, [0x00000000, 0x93642e87, 0x07a5862c, 0xc3c83853, 0xfa8a713c, 0x70ce5414, 0xc4b61422]),
        (TwemHash::Murmur, [0x00000000, 0x4b41757c, 0xabecff17, 0x70f6b624, 0x9ac6d2af, 0x2987d8bb, 0x21a7b002]),
        (TwemHash::Jenkins, [0xdeadbefc, 0xe0a38690, 0x0fdd8b60, 0x0dd56618, 0x4b2c236f, 0xb621e85f, 0x810e5a89]),
    ];
    for (h, values) in table {
        for (key, want) in KEYS.iter().zip(values) {
            assert_eq!(h.hash(key.as_bytes()), want, "{h}({key:?})");
        }
    }
}

// ------------------------------------------------------------ traces --

/// One recorded trace: its `# key: value` header lines and its rows.
struct Trace {
    name: String,
    header: Vec<(String, String)>,
    rows: Vec<(String, String)>,
}

impl Trace {
    fn get(&self, key: &str) -> Option<&str> {
        self.header.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn all(&self, key: &str) -> Vec<&str> {
        self.header.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect()
    }
}

fn traces() -> Vec<Trace> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/proxies");
    let mut out = Vec::new();
    let mut files: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for path in files {
        let text = fs::read_to_string(&path).unwrap();
        let (mut header, mut rows) = (Vec::new(), Vec::new());
        for line in text.lines() {
            if let Some(h) = line.strip_prefix("# ") {
                if let Some((k, v)) = h.split_once(": ") {
                    header.push((k.to_string(), v.to_string()));
                }
            } else {
                let (k, s) = line.split_once('\t').unwrap();
                rows.push((k.to_string(), s.to_string()));
            }
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        out.push(Trace { name, header, rows });
    }
    out
}

/// The twemproxy pool a trace's header describes, and each node's address.
fn twemproxy_of(t: &Trace) -> Twemproxy {
    let dist = match t.get("distribution").unwrap() {
        "ketama" => TwemDistribution::Ketama,
        "modula" => TwemDistribution::Modula,
        other => panic!("{}: distribution {other}", t.name),
    };
    let pool = Twemproxy::from_servers(t.all("server"))
        .unwrap()
        .with_hash(t.get("hash").unwrap().parse().unwrap())
        .with_distribution(dist);
    let pool = match t.get("hash_tag") {
        Some(tag) => pool.with_hash_tag(tag).unwrap(),
        None => pool,
    };
    // auto_eject_hosts took this server out: the pool rebuilt without it
    match t.get("ejected") {
        Some(name) => pool.remove_node(name).unwrap(),
        None => pool,
    }
}

/// The nginx upstream a trace's header describes (`server: addr [weight=N] [down]`).
fn nginx_of(t: &Trace) -> NginxHash {
    let (mut names, mut weights, mut down) = (Vec::new(), Vec::new(), Vec::new());
    for s in t.all("server") {
        let mut parts = s.split(' ');
        let name = parts.next().unwrap().to_string();
        let mut weight = 1;
        for p in parts {
            match p.strip_prefix("weight=") {
                Some(w) => weight = w.parse().unwrap(),
                None if p == "down" => down.push(name.clone()),
                None => panic!("{}: server parameter {p}", t.name),
            }
        }
        names.push(name);
        weights.push(weight);
    }
    let consistent = t.get("method").unwrap().ends_with("consistent;");
    NginxHash::named(names).unwrap().with_weights(weights).unwrap().with_consistent(consistent).with_down(down).unwrap()
}

/// Keys whose predicted backend differs from the recorded one, at most 5.
fn disagreements<L: Locate>(t: &Trace, scheme: &L, address: impl Fn(usize) -> String) -> Vec<String> {
    t.rows
        .iter()
        .filter_map(|(key, got)| {
            let want = address(scheme.locate(Key::new(key, HashWidth::Bits32)) as usize);
            (want != *got).then(|| format!("{key:?}: predicted {want}, recorded {got}"))
        })
        .take(5)
        .collect()
}

#[test]
fn every_recorded_key_lands_where_the_real_proxy_put_it() {
    let all = traces();
    let mut checked = BTreeMap::new();
    for t in &all {
        let bad = match t.get("program") {
            Some("twemproxy") => {
                let pool = twemproxy_of(t);
                disagreements(t, &pool, |i| pool.addresses()[i].clone())
            }
            Some("nginx") => {
                let up = nginx_of(t);
                disagreements(t, &up, |i| up.nodes()[i].clone())
            }
            other => panic!("{}: program {other:?}", t.name),
        };
        assert!(bad.is_empty(), "{}: {}", t.name, bad.join("; "));
        *checked.entry(t.get("program").unwrap().to_string()).or_insert(0) += t.rows.len();
    }
    // 29 twemproxy configs of 647 keys, 8 nginx upstreams of 1000 keys
    assert_eq!(checked.get("twemproxy"), Some(&(29 * 647)), "{checked:?}");
    assert_eq!(checked.get("nginx"), Some(&8000), "{checked:?}");
}

#[test]
fn the_traces_exercise_every_hash_and_the_quirks() {
    let all = traces();
    let hashes: Vec<&str> = all.iter().filter_map(|t| t.get("hash")).collect();
    for h in TwemHash::ALL {
        assert!(hashes.contains(&h.name()), "no trace for {h}");
    }
    // the name-order quirk: in config order, modula would disagree
    let t = all.iter().find(|t| t.name == "twem_modula_fnv1a64_sorted").unwrap();
    let pool = twemproxy_of(t);
    assert_eq!(pool.server_order(), [2, 1, 0]);
    let as_listed: Vec<usize> = t
        .rows
        .iter()
        .filter(|(k, _)| k.starts_with("key:"))
        .take(200)
        .map(|(k, _)| {
            let h = u64::from(pool.key_hash(k.as_bytes())) % 4;
            // config order walk: server10 (1), server9 (2), a (1)
            [0, 1, 1, 2][h as usize]
        })
        .collect();
    let sorted: Vec<usize> = t
        .rows
        .iter()
        .filter(|(k, _)| k.starts_with("key:"))
        .take(200)
        .map(|(k, _)| pool.locate(Key::new(k, HashWidth::Bits32)) as usize)
        .collect();
    assert!(as_listed.iter().zip(&sorted).filter(|(a, b)| a != b).count() > 50);
}

/// nginx's plain `hash` with a server down rehashes only that server's
/// keys; taking the server out of the config instead moves most keys.
#[test]
fn nginx_plain_hash_down_is_not_removal() {
    let t = traces().into_iter().find(|t| t.name == "nginx_hash_3_down").unwrap();
    let up = NginxHash::named(t.all("server").iter().map(|s| s.split(' ').next().unwrap())).unwrap();
    let gone = up.remove_node(up.nodes()[1].as_str()).unwrap();
    let (mut same_as_up, mut same_as_removed) = (0, 0);
    for (key, got) in &t.rows {
        same_as_up += usize::from(up.nodes()[up.server_of(key.as_bytes()) as usize] == *got);
        same_as_removed += usize::from(gone.nodes()[gone.server_of(key.as_bytes()) as usize] == *got);
    }
    // about 2/3 of keys keep their all-up server; about half agree with the 2-server config
    assert!((600..740).contains(&same_as_up), "{same_as_up}");
    assert!(same_as_removed < 600, "{same_as_removed}");
}

/// twemproxy with `hash: md5` and equal weights builds libketama's ring
/// (160 points of md5("{name}-{k}"), 4 per digest) and hashes keys the same
/// way, so it agrees with the crate's libketama `Ketama` on every key.
#[test]
fn twemproxy_md5_is_libketama() {
    let names = ["127.0.0.1:11212", "127.0.0.1:11213", "127.0.0.1:11214", "127.0.0.1:11215"];
    let keys = KeySet::new("key:", 20_000).hashed(HashWidth::Bits128).unwrap();
    let twem = Twemproxy::named(names).unwrap().with_hash(TwemHash::Md5);
    assert_eq!(twem.assign(&keys), Ketama::named(names).unwrap().assign(&keys));
}

#[test]
fn nginx_consistent_servers_keep_their_points() {
    let three = NginxHash::named(["127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"]).unwrap().with_consistent(true);
    let four = three.add_node("127.0.0.1:8004").unwrap();
    let keys = KeySet::new("key:", 20_000).hashed(HashWidth::Bits32).unwrap();
    let (a, b) = (three.assign(&keys), four.assign(&keys));
    // a key either stays or moves to the new server
    assert!(a.iter().zip(&b).all(|(x, y)| x == y || *y == 3));
    assert!(a.iter().zip(&b).any(|(x, y)| x != y));
}
