//! Independent rounds — a bootstrap's — spread over the machine's threads natively. Each
//! round's result depends only on its index (its random draws come from the seed and the
//! round), so the results are the same, in round order, whatever the number of threads; on
//! wasm32, which has one thread here (the app splits a bootstrap over web workers itself), the
//! rounds run in turn.
//!
//! Arguments: the number of rounds, `init` making one thread's scratch state, and `round`
//! computing round r with that state. Returns: the rounds' results in round order. A panic in
//! `round` is a bug and propagates as one.

/// The results of rounds `0..rounds`, in order.
pub fn map_rounds<S, T, I, F>(rounds: usize, init: I, round: F) -> Vec<T>
where
    I: Fn() -> S + Sync,
    F: Fn(&mut S, usize) -> T + Sync,
    T: Send,
{
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(rounds);
        if threads > 1 {
            let chunk = rounds.div_ceil(threads);
            return std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let (init, round) = (&init, &round);
                        scope.spawn(move || {
                            let mut state = init();
                            (t * chunk..((t + 1) * chunk).min(rounds))
                                .map(|r| round(&mut state, r))
                                .collect::<Vec<T>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| match h.join() {
                        Ok(results) => results,
                        Err(panic) => std::panic::resume_unwind(panic),
                    })
                    .collect()
            });
        }
    }
    let mut state = init();
    (0..rounds).map(|r| round(&mut state, r)).collect()
}

#[cfg(test)]
mod tests {
    use super::map_rounds;

    #[test]
    fn rounds_come_back_in_order_whatever_the_threads() {
        // A round's value from its index alone, with scratch state reused across rounds.
        let out = map_rounds(1001, Vec::<u64>::new, |scratch, r| {
            scratch.clear();
            scratch.extend((0..=r as u64).map(|k| k * k));
            scratch.iter().sum::<u64>()
        });
        let expected: Vec<u64> = (0..1001u64)
            .map(|r| r * (r + 1) * (2 * r + 1) / 6)
            .collect();
        assert_eq!(out, expected);
        assert!(map_rounds(0, || (), |_, r| r).is_empty());
        assert_eq!(map_rounds(1, || (), |_, r| r), [0]);
    }
}
