//! Delta debugging (Zeller's ddmin, complements only): drops pieces of a failing input while
//! it still fails, lines first, then words, then characters (or bytes, for a binary file).

use super::targets::Form;

/// At most this many runs of the target per shrink, so an input that is slow to run still
/// gets a report soon.
const MAX_TRIES: usize = 4_000;

/// The smallest input found that still `fails`.
pub fn shrink(input: &[u8], form: Form, fails: &mut dyn FnMut(&[u8]) -> bool) -> Vec<u8> {
    let mut tries = 0;
    let mut counted = |candidate: &[u8]| {
        tries += 1;
        tries <= MAX_TRIES && fails(candidate)
    };
    match (form, std::str::from_utf8(input)) {
        (Form::Bytes, _) | (_, Err(_)) => {
            let bytes: Vec<Vec<u8>> = input.iter().map(|b| vec![*b]).collect();
            ddmin(bytes, &mut counted).concat()
        }
        (_, Ok(text)) => {
            let mut current = text.to_string();
            let splits: [fn(&str) -> Vec<String>; 3] = [
                |t| t.split_inclusive('\n').map(str::to_string).collect(),
                |t| t.split_inclusive(' ').map(str::to_string).collect(),
                |t| t.chars().map(String::from).collect(),
            ];
            for split in splits {
                let units = split(&current);
                current = ddmin(units, &mut |c: &[u8]| counted(c)).concat();
            }
            current.into_bytes()
        }
    }
}

/// A piece of an input: its bytes when joined.
trait Unit: Clone {
    fn join(units: &[Self]) -> Vec<u8>;
}

impl Unit for Vec<u8> {
    fn join(units: &[Self]) -> Vec<u8> {
        units.concat()
    }
}

impl Unit for String {
    fn join(units: &[Self]) -> Vec<u8> {
        units.concat().into_bytes()
    }
}

fn ddmin<T: Unit>(mut units: Vec<T>, fails: &mut dyn FnMut(&[u8]) -> bool) -> Vec<T> {
    let mut parts = 2;
    while units.len() >= 2 {
        let chunk = units.len().div_ceil(parts);
        let smaller = (0..units.len()).step_by(chunk).find_map(|start| {
            let end = (start + chunk).min(units.len());
            let rest: Vec<T> = [&units[..start], &units[end..]].concat();
            fails(&T::join(&rest)).then_some(rest)
        });
        match smaller {
            Some(rest) => {
                units = rest;
                parts = (parts - 1).max(2);
            }
            None if parts >= units.len() => break,
            None => parts = (parts * 2).min(units.len()),
        }
    }
    // A single piece left may itself be droppable.
    if units.len() == 1 && fails(&[]) {
        units.clear();
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinks_text_to_the_piece_that_fails() {
        let input = b"etcdctl put a 1\netcdctl get \x7fboom --prefix\nwait 1s\n";
        let small = shrink(input, Form::Text, &mut |c| {
            String::from_utf8_lossy(c).contains("boom")
        });
        assert_eq!(small, b"boom");
    }

    #[test]
    fn shrinks_bytes_and_keeps_what_is_needed() {
        let input: Vec<u8> = (0..=255).collect();
        let small = shrink(&input, Form::Bytes, &mut |c| {
            c.contains(&7) && c.contains(&200)
        });
        assert_eq!(small, vec![7, 200]);
    }

    #[test]
    fn an_input_that_always_fails_shrinks_to_nothing() {
        assert!(shrink(b"abc def", Form::Text, &mut |_| true).is_empty());
    }
}
