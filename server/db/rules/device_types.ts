export const noDeviceType = (id: string) => `No device type with id ${id}.`;

export const noDefaultFirmware = (firmwareId: string) => `defaultFirmware: no firmware with id ${firmwareId}.`;
