//! Names close to a misspelt one, for "did you mean".

/// At most five of `names` close to `wanted`: the same name in another case, a name containing
/// it (or contained in it), or one within a small edit distance, closest first.
pub(crate) fn near<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let lower = wanted.to_lowercase();
    let limit = (wanted.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, String)> = names
        .into_iter()
        .filter(|n| *n != wanted)
        .filter_map(|n| {
            let l = n.to_lowercase();
            let d = distance(&lower, &l);
            let contains = !lower.is_empty() && (l.contains(&lower) || lower.contains(&l));
            (d <= limit || contains).then(|| (if l == lower { 0 } else { d }, n.to_owned()))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(5).map(|(_, n)| n).collect()
}

/// Levenshtein distance over characters, bounded in work by the names' lengths (names are
/// short; anything past 256 characters is compared by its first 256).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(256).collect();
    let b: Vec<char> = b.chars().take(256).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_come_first() {
        let names = ["forecast", "forecast_error", "echo", "add", "Forecast2"];
        assert_eq!(
            near("forcast", names),
            vec!["forecast".to_owned(), "Forecast2".to_owned()]
        );
        assert_eq!(near("FORECAST", names)[0], "forecast");
        assert!(near("zzzzzz", names).is_empty());
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
