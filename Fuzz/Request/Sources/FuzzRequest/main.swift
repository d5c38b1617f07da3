runFuzzer { bytes, count in fuzzRequest(bytes, count) }
