import WebImageCodecs

/// TIFF decode (libtiff: directories, SubIFDs, strips and tiles, every compression libtiff has,
/// the coder's sample conversion and libtiff's RGBA interface, ICC profiles): full size,
/// thumbnail (pyramid levels) and a byte budget; the header reader must never trap either.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTIFF(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: bytes, count: count)
    fuzzDecode(TIFFCoder(), input, formats: [.tiff])
    fuzzHeader(TIFFCoder(), input, formats: [.tiff])
    return 0
}
