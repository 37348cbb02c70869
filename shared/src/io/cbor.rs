//! CBOR, the encoding of the app's page ↔ web-worker messages: self-describing, so internally
//! tagged enums (an analysis `Spec`, a `Report`) decode — which a non-self-describing format
//! such as bincode cannot do — and every f64 is kept exactly, NaN and ±∞ included, which JSON
//! cannot do (it writes an undefined statistic as `null`, and no `f64` reads `null` back).
//!
//! Arguments: any serialisable value, or the bytes it was encoded to. Returns: the bytes, or
//! the value. Errors: a message for bytes that are not the CBOR of such a value.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// `value` as CBOR. Values whose serialisation can fail (a map with non-string keys is fine in
/// CBOR; a failing `Serialize` impl is not) encode what was written before the failure.
pub fn to_cbor(value: &impl Serialize) -> Vec<u8> {
    let mut bytes = Vec::new();
    // Writing to a Vec cannot fail; the serde types of this crate and the app always serialise.
    let _ = ciborium::into_writer(value, &mut bytes);
    bytes
}

/// The value encoded in `bytes`.
///
/// # Errors
/// A message saying why the bytes are not the CBOR of a `T`.
pub fn from_cbor<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    ciborium::from_reader(bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{run, Analysis, Inputs, Report, Spec};
    use crate::rankings::kinds::LeaderboardSpec;
    use crate::reliability::kinds::AgreementSpec;
    use crate::reliability::reliability_report::AgreementReportParams;

    /// Runs `analysis` on `files` (role, name, bytes): its report and the report after a trip
    /// through CBOR.
    fn through_cbor(analysis: Analysis, files: &[(&str, &str, &[u8])]) -> (Report, Report) {
        let mut inputs = Inputs::new();
        for (role, name, bytes) in files {
            inputs.insert(*role, *name, bytes.to_vec());
        }
        let report = run(&Spec::new(analysis, &inputs), &inputs).unwrap();
        let decoded: Report = from_cbor(&to_cbor(&report)).unwrap();
        (report, decoded)
    }

    const BATTLES: &[u8] =
        b"model_a,model_b,winner\nx,y,model_a\ny,z,model_a\nz,x,model_b\nx,z,tie\n";

    #[test]
    fn reports_come_back_as_the_same_variant_with_every_number() {
        let (report, decoded) = through_cbor(
            Analysis::Leaderboard(LeaderboardSpec::default()),
            &[("battles", "b.csv", BATTLES)],
        );
        assert!(matches!(decoded, Report::Leaderboard(_)));
        assert_eq!(decoded, report);

        let ratings = "item,rater,score\nq1,judge,4\nq1,alice,5\nq2,judge,2\nq2,alice,2\n\
                       q3,judge,5\nq3,alice,4\nq4,judge,1\nq4,alice,1\n";
        let (report, decoded) = through_cbor(
            Analysis::Agreement(AgreementSpec {
                report: AgreementReportParams::default(),
                judges: 0,
                slices: None,
            }),
            &[("ratings", "r.csv", ratings.as_bytes())],
        );
        assert!(matches!(decoded, Report::Agreement(_)));
        assert_eq!(decoded, report);
    }

    #[test]
    fn undefined_statistics_stay_nan_and_infinite_ones_keep_their_sign() {
        let (mut report, _) = through_cbor(
            Analysis::Leaderboard(LeaderboardSpec::default()),
            &[("battles", "b.csv", BATTLES)],
        );
        let Report::Leaderboard(board) = &mut report else {
            panic!("a leaderboard spec gives a leaderboard report");
        };
        board.ratings[0].elo = f64::NAN;
        board.ratings[1].elo = f64::NEG_INFINITY;
        board.ratings[1].se = Some(f64::INFINITY);
        let Report::Leaderboard(decoded) = from_cbor::<Report>(&to_cbor(&report)).unwrap() else {
            panic!("the variant changed on the way");
        };
        assert!(decoded.ratings[0].elo.is_nan());
        assert_eq!(decoded.ratings[1].elo, f64::NEG_INFINITY);
        assert_eq!(decoded.ratings[1].se, Some(f64::INFINITY));
        // JSON could not have carried them: it writes `null`, which an f64 cannot read back.
        let json = serde_json::to_string(&report).unwrap();
        assert!(serde_json::from_str::<Report>(&json).is_err());
    }

    #[test]
    fn specs_and_bytes_come_back_and_other_bytes_are_refused() {
        let mut inputs = Inputs::new();
        inputs.insert("battles", "b.csv", BATTLES.to_vec());
        let spec = Spec::new(Analysis::Leaderboard(LeaderboardSpec::default()), &inputs);
        assert_eq!(from_cbor::<Spec>(&to_cbor(&spec)).unwrap(), spec);
        let bytes = (u64::MAX, vec![0x93_u8, 0xff, 0x00]);
        assert_eq!(
            from_cbor::<(u64, Vec<u8>)>(&to_cbor(&bytes)).unwrap(),
            bytes
        );
        assert!(from_cbor::<Spec>(b"\xff\x00").is_err());
    }
}
