import WebImageCodecs

/// AVIF decode (libavif: container parsing, grids, sequences, clap/irot/imir, bit depths): full
/// size, thumbnail and first frame with a byte budget; the header reader must never trap either.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVIF(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: bytes, count: count)
    fuzzDecode(AVIFCoder(), input, formats: [.avif])
    fuzzHeader(AVIFCoder(), input, formats: [.avif])
    return 0
}
