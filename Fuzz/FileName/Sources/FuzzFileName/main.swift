runFuzzer { bytes, count in fuzzFileName(bytes, count) }
