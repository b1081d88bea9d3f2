/// The E2E-CRC of the Continuous Glucose Monitoring Service (CGMS v1.0.1: CRC-CCITT, polynomial D16+D12+D5+1 in
/// reverse order, seed 0xFFFF — as Cypress's CGMS example and Nordic's CRC16.MCRF4XX implement it): in the CRC
/// catalogue's terms CRC-16/MCRF4XX — poly 0x1021 (0x8408 reflected), init 0xFFFF, refin and refout true, xorout 0;
/// check value over ASCII "123456789" is 0x6F91.
/// The CRC is sent least significant octet first, like every other multi-octet GATT field.
public enum CRC16MCRF4XX {
    /// The CRC over `bytes`, in order.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 {
                // Reflected form: shift right and fold in the reversed polynomial when the bit shifted out is 1.
                crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1
            }
        }
        return crc
    }
}
