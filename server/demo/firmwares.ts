/**
 * The two demo firmwares: tiny but real xz streams (made with `xz -6` from a header line and 1.5 KB of
 * pseudo-random nibbles), embedded because the container may have no `xz` binary.
 */
export const DEMO_FIRMWARES: readonly { name: string; base64: string }[] = [
  {
    name: "jeecee-baby-fw-1.4.2.xz",
    base64: "/Td6WFoAAATm1rRGAgAhARYAAAB0L+Wj4AYKA11dACURbIcAQgGQgHQwfLy7Sqpl7qUuSFyeCWCymPDC55jfTrvNV3NqBJwyOYIj" +
      "XoE5JpvP+9EQ8S44YumoTkJfnVSxADIGRTtUERoANX7TIGu6y0WjuKBNK+Z7j4Lo85o5kEo8hZtLIhJVbYjGZ4gk0xN7y9MBoqXE" +
      "WPt7J/nRzsRlJMlHaYuGFgB0nC81NKucAXIewKwFjLBqTnjVVVP05aHHv5zufCh8FmaScs6W0bBUY1ghI/r2EGN+zT2nj8QchCm9" +
      "d73Yuf6+U63Us6SXJ0TTtYYEtxTNrDgHf6BHNe4EUaW5zCPCi9HBtuasfqYyjqlRNHc0VtGaLXuwPyZCPe1KU3avWBG80FaIexfS" +
      "diiUqJsn6JCqfMVY3pWy7Fhp1rQL9dccs9ML0tnlLvcG809u0yaVV/Y4DCwVg1fKu2EwfmBKKkLPVX5jK7VnP2SNhBKjGYVJlw+k" +
      "rZCRQAxvFo1RP8YG/WltpR6IPXk42XB57kWjfpVpxI5+1RzTg+iNP2xprKRjqezmw2Rdd2KzM032W3sPF1Wma/xc4IEvCCO9kIZ5" +
      "VMEe7dMdPK/wAujPpr1/9n2PjUaIp9WYh1AcmkDFkRCHQ+AD1oGOa19EorFQmJI939vJot+v3jAdtOnRC3CEbdNEschB7tM/cm1S" +
      "f5x8mnM9G5kMNihRlKTYbOKg1UalsrSU2j2rZ8k1tmDBhGKALZpFJ4v0b3rjafLXa31kAenTn8hUxtuGUN5d2FyIfyX8I2kK8kv6" +
      "3f5gX+RZjpQxAhJxIwjOH49prFM63M9ya2kZKbWIEXmaRHxMr1U0IEoV1WPS+bWhAJFWMFD8c3lHTQcNcp8B0XcLaHC81Af2gxA1" +
      "LYa0hILlnjfzhVsgyJUKbMLxhMocm38BjLCHbkWsps/JfKm6xnBLmG2ESbEhH/pcgGCVo8Ek5COQ+YtYhz2E+hm5Gw1QOINObJ74" +
      "+MG+IZZ94d6BUT/CeW3dAt7mixiqfOyVqW3hRcxPWaHZd+1KwkbaPMutiuQLPnZOfM0Lrio9WhFmYTA2TfkM08JCT58W6eTp+JU8" +
      "hL4s8vkWlmFhpJBfDFmCb86ftneYbZtPksJFuyx5xB0CDN8w+qPcN6gwBSw9Icm6fVDNxUE4rH7/hEhd4jB+gxhYJgAAAACKTAVR" +
      "urPMPAAB+QaLDAAA8qHKTbHEZ/sCAAAAAARZWg==",
  },
  {
    name: "jeecee-baby-fw-1.5.0-rc1.xz",
    base64: "/Td6WFoAAATm1rRGAgAhARYAAAB0L+Wj4AYOA1xdACURbIcAQgGQgHQwfLy7Sqpl7qUuSFyeCXw6laq1eUvJx8WYNUXc+uB9GEjk" +
      "37QdXYqiAl7JpCM4K9IKmvmeo3J3hKSKNWQ3o/ZU3VmZsD9rhCudiyPYdkaPThTDmSmW682HlEFgAMdBnnxE83j66JNPSbRpXPOq" +
      "UaW3h8c5iWEB2XMBllEkndOUMX5uu0vzZOTn2qX4OTH6m+qiE2zIKHtaXL0tXfnYdlF97IfVMYiOtajdubbXg+wdBjTuEv/Qyz19" +
      "A04GrlBRGqpDOEqpC1YR8Ptdg/LSt1kGZBP5l20XfFaz00RRiDxJV8GFSFU1RQH6qCItnVl4cjGBiM/jTXA1SOPiJjdO4o1EnCTC" +
      "LXwPoYFt1qjQBa81uwFqT04YPbiqFj+UYk3DCmaaNdvhGdE/8MWp/u+PwZ6k4ZX7Za2NfTMDcsgz1QqTUATvXo9xjRkCUIjnzS/g" +
      "wFm2mUFkkNLFgdvHF274/Vowa8zD3vGbhAzLJgLP5czTU8MYxt5pYq8uuUvmdfSw1T+3mTF/UehqlcIU49c6yv83v1cT9JF2vviT" +
      "R54qOGZPyzqoSUQNjLIuIDVIuuKhRVdD0iefP4/zic09u5qe8qd8mRxy2y/0uPMQr0K7+MdgC2YUIUCZdcQkP0MmtaCV3961q/tU" +
      "DuaRwXNgHKamOK001s9jzMDe3lLXC3RHV2gefsCIkXPU5HamO66fokYa8u/s3INxflNYxH19eJXL8cUJwxiaqb2T+YO5j4sZ1XIL" +
      "uT1lJhWvvreZ56V+10kT3EFNcCqdiEsD0pFUlIrRr3AzVssdk+Iqe2ALQM5v/BwVIRkBSqMSQMi0xLoJYXn1J9tt1HpKhYH6OJB1" +
      "tyLZ2GNXhBWfFKFetohY4yiWnsPhqEr32pZPnyn6pIXIirePDKmYCA9ZXtgT+y8dBly3/0WgzZ8zlutTZfYUdS9abeOfzU62COI9" +
      "0C8KVP5t9vGTnMA18sTmjXioi+ZcjXJ/a6sSHndI6WsMmMoJB/bjkN/D5XgvVoLT2wm4uAzywvn8aW9xUA+Yi4gTNrFPeu9p+TOt" +
      "+ykOD6MgrguuA9RfMq8Hi9YDA3Fy8ZAefyPgSO3eeGKbDmHuvsTn11CFQ7GcQW981WSP+L679V+zfyD0T7xm0tPEAKOYKPupL2Df" +
      "AAH4Bo8MAAAA5fQJscRn+wIAAAAABFla",
  },
];
