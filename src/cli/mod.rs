//! The native command-line tool.
pub fn main() -> i32 { 0 }
