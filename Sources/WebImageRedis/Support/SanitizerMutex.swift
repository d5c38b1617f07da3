#if WEBIMAGE_TSAN
import WebImageCodecs

/// Under `make tsan`, this module locks with the library's pthread-backed stand-in, which
/// ThreadSanitizer can see (docs/RELIABILITY.md); this alias shadows `Synchronization.Mutex`.
typealias Mutex<Value: ~Copyable> = WebImageCodecs.Mutex<Value>
#endif
