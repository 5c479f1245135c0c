//! Statistics of a series' values: Spearman's rank correlation, sign changes, the relative spread, and
//! the mean, min and max.

/// Spearman's rank correlation (ties get their mean rank); `None` with fewer than 2 points or when
/// either variable is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    pearson(&ranks(x), &ranks(y))
}

fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let mean_rank = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[order[k]] = mean_rank;
        }
        i = j + 1;
    }
    r
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 { None } else { Some(sxy / (sxx * syy).sqrt()) }
}

/// Sign changes between successive non-zero differences of `v` (a zero difference is skipped).
pub fn sign_changes(v: &[f64]) -> usize {
    let signs: Vec<bool> = v.windows(2).map(|w| w[1] - w[0]).filter(|d| *d != 0.0).map(|d| d > 0.0).collect();
    signs.windows(2).filter(|w| w[0] != w[1]).count()
}

/// `(max - min) / mean(|v|)`: the relative spread a `flat` trend bounds.
pub fn relative_spread(v: &[f64]) -> f64 {
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let mean_abs = v.iter().map(|x| x.abs()).sum::<f64>() / v.len() as f64;
    (max - min) / mean_abs
}

pub(crate) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

pub(crate) fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

pub(crate) fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}
