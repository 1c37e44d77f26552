/** A new random id: 128 bits as 32 hex digits. */
export const newId = () => crypto.randomUUID().replaceAll("-", "");
