//! A line diff of two texts, as a person reads it in a failed case: `-` for what was expected,
//! `+` for what came, two lines of context around each change.

/// The unified-style diff of `expected` and `actual` (empty when equal).
pub fn lines(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    if a == b {
        return String::new();
    }
    // Longest common subsequence, bounded: beyond 4 million cells, every line differs.
    let ops: Vec<(char, &str)> = if a.len().saturating_mul(b.len()) <= 4_000_000 {
        let mut table = vec![vec![0u32; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                table[i][j] = if a[i] == b[j] {
                    table[i + 1][j + 1] + 1
                } else {
                    table[i + 1][j].max(table[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        let mut ops = Vec::new();
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                ops.push((' ', a[i]));
                i += 1;
                j += 1;
            } else if i < a.len() && (j == b.len() || table[i + 1][j] >= table[i][j + 1]) {
                ops.push(('-', a[i]));
                i += 1;
            } else {
                ops.push(('+', b[j]));
                j += 1;
            }
        }
        ops
    } else {
        a.iter()
            .map(|l| ('-', *l))
            .chain(b.iter().map(|l| ('+', *l)))
            .collect()
    };
    let near = |k: usize| {
        let from = k.saturating_sub(2);
        let to = (k + 2).min(ops.len() - 1);
        (from..=to).any(|n| ops[n].0 != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if *op == ' ' && !near(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("  …\n");
            skipped = false;
        }
        out.push(*op);
        out.push(' ');
        out.push_str(line);
        out.push('\n');
    }
    if skipped {
        out.push_str("  …\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_with_its_context() {
        let expected = "a\nb\nc\nd\ne\nf\ng\n";
        let actual = "a\nb\nc\nD\ne\nf\ng\n";
        assert_eq!(
            lines(expected, actual),
            "  …\n  b\n  c\n- d\n+ D\n  e\n  f\n  …\n"
        );
        assert_eq!(lines("x\n", "x\n"), "");
        assert_eq!(lines("", "new\n"), "+ new\n");
    }
}
