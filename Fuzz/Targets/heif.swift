import WebImageCodecs

/// HEIC/HEIF decode (libheif: primary item, thumbnails, grids, transformations, alpha): full
/// size, thumbnail and first frame with a byte budget; the header reader must never trap either.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: bytes, count: count)
    fuzzDecode(HEIFCoder(), input, formats: [.heic, .heif])
    fuzzHeader(HEIFCoder(), input, formats: [.heic, .heif])
    return 0
}
