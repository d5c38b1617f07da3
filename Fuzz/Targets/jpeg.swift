import WebImageCodecs

/// JPEG decode: full size, thumbnail (DCT scaling) and first frame with a byte budget.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzDecode(JPEGCoder(), UnsafeRawBufferPointer(start: bytes, count: count), formats: [.jpeg])
    return 0
}
