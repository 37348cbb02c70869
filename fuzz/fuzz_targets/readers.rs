#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tribunal_fuzz::readers(data));
