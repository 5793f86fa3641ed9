//! Measuring memory natively (the memory benchmark and the test that bounds it): a global
//! allocator that counts the heap's high-water mark, and the process's peak resident size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting live bytes and their peak. Install it with
/// `#[global_allocator] static ALLOC: PeakAlloc = PeakAlloc::new();`.
pub struct PeakAlloc {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl PeakAlloc {
    pub const fn new() -> PeakAlloc {
        PeakAlloc {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// The most heap in use at once since the start (or the last reset).
    pub fn peak_bytes(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    pub fn reset_peak(&self) {
        self.peak
            .store(self.live.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    fn grew(&self, bytes: usize) {
        let live = self.live.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(live, Ordering::Relaxed);
    }
}

impl Default for PeakAlloc {
    fn default() -> Self {
        PeakAlloc::new()
    }
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are updated.
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.live.fetch_sub(layout.size(), Ordering::Relaxed);
            self.grew(new_size);
        }
        p
    }
}

/// This process's peak resident set (`VmHWM` in `/proc/self/status`), where Linux tells it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The script a memory measurement runs: a cluster, optionally Kubernetes, then `seconds` of
/// virtual time in waits the console accepts.
pub fn soak_script(kube: bool, seconds: u64) -> String {
    let mut script = String::from("wait leader\n");
    if kube {
        script.push_str("kube up\n");
    }
    let step = crate::console::WAIT_LIMIT_MS / 1000;
    let mut left = seconds;
    while left > 0 {
        let s = left.min(step);
        script.push_str(&format!("wait {s}s\n"));
        left -= s;
    }
    script
}
