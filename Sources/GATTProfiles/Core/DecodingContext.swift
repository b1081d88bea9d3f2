/// What a decoder may know beyond the value itself, passed in (the profiles room keeps no state and reads no clock):
/// the previous value on the same characteristic of the same device (CSC, RSC and Cycling Power derive speed and
/// cadence from the difference; Body Composition joins its multi-packet halves), the feature values read on the
/// same link (CGM Feature says whether an E2E-CRC is present), and settings.
public struct DecodingContext: Sendable, Hashable {
    /// The previous raw value of this characteristic from this device, when the caller has one.
    public var previous: [UInt8]?
    /// Feature and configuration characteristics read on this link, by assigned number (`2AA8` CGM Feature, …).
    public var features: [AssignedNumber: [UInt8]]
    /// Wheel circumference for CSC and Cycling Power speed, in millimetres (a 700×25c road tyre is about 2 105 mm).
    public var wheelCircumferenceMillimetres: Int

    public init(previous: [UInt8]? = nil, features: [AssignedNumber: [UInt8]] = [:], wheelCircumferenceMillimetres: Int = 2105) {
        self.previous = previous
        self.features = features
        self.wheelCircumferenceMillimetres = wheelCircumferenceMillimetres
    }

    public static let none = DecodingContext()
}
