import WebImageCodecs

/// JPEG XL decode (libjxl: codestream and container, boxes, orientation, colour encodings and ICC
/// profiles, animation with frames decoded on demand): full size, thumbnail and first frame with
/// a byte budget, plus every lazily decoded frame; the header reader must never trap either.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJXL(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: bytes, count: count)
    fuzzDecode(JXLCoder(), input, formats: [.jpegXL])
    fuzzHeader(JXLCoder(), input, formats: [.jpegXL])
    return 0
}
