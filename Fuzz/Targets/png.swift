import WebImageCodecs

/// PNG and APNG decode: full size, thumbnail and first frame with a byte budget.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzDecode(PNGCoder(), UnsafeRawBufferPointer(start: bytes, count: count), formats: [.png, .apng])
    return 0
}
