import type { Channel, Phase } from "../../shared/schemas/treatment.ts";
import type { Prng } from "../../shared/prng.ts";

/** How a program stimulates: the ranges its channels are drawn from. */
type Kind =
  | "tens"
  | "tens_low"
  | "tens_burst"
  | "labour"
  | "nmes"
  | "endurance"
  | "pelvic_strength"
  | "pelvic_urge"
  | "massage"
  | "circulation"
  | "rehab";

export type BodyArea =
  | "neck"
  | "shoulder"
  | "upper_back"
  | "lower_back"
  | "abdomen"
  | "pelvis"
  | "arm"
  | "hand"
  | "thigh"
  | "knee"
  | "calf"
  | "foot";

export interface TreatmentSpec {
  name: string;
  category: string;
  use: string;
  kind: Kind;
  area: BodyArea;
  channels: [number, number];
}

const PAIN = "Pain relief", MUSCLE = "Muscle strengthening", PELVIC = "Pelvic floor", RECOVERY = "Recovery & massage";
const CIRCULATION = "Circulation", REHAB = "Rehabilitation", SPORT = "Sports", PREGNANCY = "Pregnancy & labour";

export const TREATMENTS: readonly TreatmentSpec[] = [
  {
    name: "Lower back pain – conventional TENS",
    category: PAIN,
    use: "Acute and chronic lower back pain. Electrodes either side of the lumbar spine.",
    kind: "tens",
    area: "lower_back",
    channels: [1, 2],
  },
  {
    name: "Neck pain – conventional TENS",
    category: PAIN,
    use: "Neck pain and stiffness. Electrodes on the upper trapezius, avoiding the front of the neck.",
    kind: "tens",
    area: "neck",
    channels: [1, 2],
  },
  {
    name: "Shoulder pain – conventional TENS",
    category: PAIN,
    use: "Shoulder pain, e.g. impingement or frozen shoulder. Electrodes around the painful area.",
    kind: "tens",
    area: "shoulder",
    channels: [1, 2],
  },
  {
    name: "Knee pain – conventional TENS",
    category: PAIN,
    use: "Knee pain from osteoarthritis or overuse. Electrodes above and below the kneecap.",
    kind: "tens",
    area: "knee",
    channels: [1, 2],
  },
  {
    name: "Hip pain – conventional TENS",
    category: PAIN,
    use: "Hip and groin pain. Electrodes over the side of the hip.",
    kind: "tens",
    area: "thigh",
    channels: [1, 2],
  },
  {
    name: "Sciatica – burst TENS",
    category: PAIN,
    use: "Radiating leg pain along the sciatic nerve. Lower back and back of the thigh.",
    kind: "tens_burst",
    area: "lower_back",
    channels: [2, 2],
  },
  {
    name: "Period pain – high-frequency TENS",
    category: PAIN,
    use: "Menstrual cramps. Electrodes on the lower abdomen or lower back.",
    kind: "tens",
    area: "abdomen",
    channels: [1, 2],
  },
  {
    name: "Hand arthritis – acupuncture-like TENS",
    category: PAIN,
    use: "Arthritic pain in the hand and wrist. Small electrodes on the back of the hand.",
    kind: "tens_low",
    area: "hand",
    channels: [1, 1],
  },
  {
    name: "Tension headache – low-frequency TENS",
    category: PAIN,
    use: "Tension-type headache. Electrodes on the neck below the hairline.",
    kind: "tens_low",
    area: "neck",
    channels: [1, 1],
  },
  {
    name: "Post-operative pain – TENS",
    category: PAIN,
    use: "Pain around a healed incision; electrodes parallel to the scar, never on it.",
    kind: "tens",
    area: "abdomen",
    channels: [1, 2],
  },
  {
    name: "Plantar fasciitis – TENS",
    category: PAIN,
    use: "Heel and arch pain. Electrodes on the sole and the inside of the ankle.",
    kind: "tens",
    area: "foot",
    channels: [1, 1],
  },
  {
    name: "Tennis elbow – TENS",
    category: PAIN,
    use: "Lateral elbow pain. Electrodes on the forearm extensors.",
    kind: "tens",
    area: "arm",
    channels: [1, 1],
  },
  {
    name: "Endorphin release – low-frequency",
    category: PAIN,
    use: "Long-lasting relief for chronic pain through endorphin release.",
    kind: "tens_low",
    area: "upper_back",
    channels: [1, 2],
  },
  {
    name: "Chronic pain – modulated TENS",
    category: PAIN,
    use: "Chronic pain where plain TENS loses effect; frequency varies to prevent habituation.",
    kind: "tens",
    area: "lower_back",
    channels: [2, 2],
  },
  {
    name: "Labour pain – early stage",
    category: PREGNANCY,
    use: "First stage of labour. Four electrodes on the lower back, from the first contractions.",
    kind: "labour",
    area: "lower_back",
    channels: [2, 4],
  },
  {
    name: "Labour pain – boost",
    category: PREGNANCY,
    use: "Strong contractions: the boost program used during each contraction.",
    kind: "labour",
    area: "lower_back",
    channels: [2, 4],
  },
  {
    name: "Pregnancy back pain",
    category: PREGNANCY,
    use: "Lower back and pelvic girdle pain in pregnancy (not before week 37 without advice).",
    kind: "tens",
    area: "lower_back",
    channels: [1, 2],
  },
  {
    name: "Heavy legs in pregnancy",
    category: PREGNANCY,
    use: "Tired, swollen legs. Gentle calf pump to help venous return.",
    kind: "circulation",
    area: "calf",
    channels: [2, 2],
  },
  {
    name: "Diastasis recti – postnatal rehab",
    category: PREGNANCY,
    use: "Closing the gap between the abdominal muscles after birth, from 6 weeks postpartum.",
    kind: "rehab",
    area: "abdomen",
    channels: [2, 4],
  },
  {
    name: "Pelvic floor – postnatal recovery",
    category: PELVIC,
    use: "Rebuilding pelvic floor strength after birth, with a vaginal or external electrode.",
    kind: "pelvic_strength",
    area: "pelvis",
    channels: [1, 1],
  },
  {
    name: "Stress incontinence",
    category: PELVIC,
    use: "Leaks when coughing, laughing or lifting: strengthens the pelvic floor.",
    kind: "pelvic_strength",
    area: "pelvis",
    channels: [1, 2],
  },
  {
    name: "Urge incontinence",
    category: PELVIC,
    use: "Overactive bladder: calms the detrusor muscle with low frequencies.",
    kind: "pelvic_urge",
    area: "pelvis",
    channels: [1, 1],
  },
  {
    name: "Mixed incontinence",
    category: PELVIC,
    use: "Combined stress and urge symptoms: alternates strength and calming phases.",
    kind: "pelvic_strength",
    area: "pelvis",
    channels: [1, 2],
  },
  {
    name: "Pelvic floor – endurance",
    category: PELVIC,
    use: "Long holds for slow-twitch fibres of the pelvic floor.",
    kind: "endurance",
    area: "pelvis",
    channels: [1, 1],
  },
  {
    name: "Pelvic floor – fast twitch",
    category: PELVIC,
    use: "Quick, strong contractions for the fast-twitch fibres.",
    kind: "pelvic_strength",
    area: "pelvis",
    channels: [1, 1],
  },
  {
    name: "Quadriceps strengthening",
    category: MUSCLE,
    use: "Building thigh strength. Electrodes on vastus medialis and lateralis.",
    kind: "nmes",
    area: "thigh",
    channels: [2, 4],
  },
  {
    name: "Quadriceps after knee surgery",
    category: MUSCLE,
    use: "Preventing quadriceps inhibition after knee surgery, with the surgeon's consent.",
    kind: "rehab",
    area: "thigh",
    channels: [2, 2],
  },
  {
    name: "Gluteal activation",
    category: MUSCLE,
    use: "Waking up and strengthening the gluteus medius and maximus.",
    kind: "nmes",
    area: "pelvis",
    channels: [2, 4],
  },
  {
    name: "Abdominal toning",
    category: MUSCLE,
    use: "Toning the rectus abdominis and obliques.",
    kind: "nmes",
    area: "abdomen",
    channels: [2, 4],
  },
  {
    name: "Calf strengthening",
    category: MUSCLE,
    use: "Strength for the gastrocnemius and soleus.",
    kind: "nmes",
    area: "calf",
    channels: [2, 2],
  },
  {
    name: "Hamstring strengthening",
    category: MUSCLE,
    use: "Strength for the back of the thigh.",
    kind: "nmes",
    area: "thigh",
    channels: [2, 2],
  },
  {
    name: "Back extensor strengthening",
    category: MUSCLE,
    use: "Supporting the spine: strengthens the lumbar erector spinae.",
    kind: "nmes",
    area: "lower_back",
    channels: [2, 2],
  },
  {
    name: "Arm toning – biceps and triceps",
    category: MUSCLE,
    use: "Toning the upper arm, alternating biceps and triceps.",
    kind: "nmes",
    area: "arm",
    channels: [2, 2],
  },
  {
    name: "Active recovery – legs",
    category: RECOVERY,
    use: "After hard training: low frequencies flush the legs without fatigue.",
    kind: "massage",
    area: "thigh",
    channels: [2, 4],
  },
  {
    name: "Relaxing massage – upper back",
    category: RECOVERY,
    use: "Tension in the upper back and between the shoulder blades.",
    kind: "massage",
    area: "upper_back",
    channels: [1, 2],
  },
  {
    name: "Cramp relief – calf",
    category: RECOVERY,
    use: "Releasing a calf cramp or tight calf muscles.",
    kind: "massage",
    area: "calf",
    channels: [1, 2],
  },
  {
    name: "Post-workout recovery",
    category: RECOVERY,
    use: "General recovery program within 3 hours after exercise.",
    kind: "massage",
    area: "thigh",
    channels: [2, 4],
  },
  {
    name: "Muscle relaxation – shoulders",
    category: RECOVERY,
    use: "Stiff shoulders after desk work.",
    kind: "massage",
    area: "shoulder",
    channels: [1, 2],
  },
  {
    name: "Circulation – lower legs",
    category: CIRCULATION,
    use: "Cold feet and poor circulation in the lower legs.",
    kind: "circulation",
    area: "calf",
    channels: [2, 4],
  },
  {
    name: "Oedema reduction – ankles",
    category: CIRCULATION,
    use: "Swollen ankles: rhythmic contractions move fluid upwards.",
    kind: "circulation",
    area: "foot",
    channels: [2, 4],
  },
  {
    name: "Venous return – sequential",
    category: CIRCULATION,
    use: "Sequential activation from the foot up to the thigh.",
    kind: "circulation",
    area: "calf",
    channels: [4, 4],
  },
  {
    name: "Foot drop – dorsiflexion assist",
    category: REHAB,
    use: "Stimulates the peroneal nerve to lift the foot during walking practice.",
    kind: "rehab",
    area: "calf",
    channels: [1, 1],
  },
  {
    name: "Wrist extension – stroke rehab",
    category: REHAB,
    use: "Re-learning wrist and finger extension after a stroke.",
    kind: "rehab",
    area: "arm",
    channels: [1, 2],
  },
  {
    name: "Muscle re-education – knee",
    category: REHAB,
    use: "Restoring voluntary control of the knee extensors.",
    kind: "rehab",
    area: "knee",
    channels: [1, 2],
  },
  {
    name: "Atrophy prevention – thigh",
    category: REHAB,
    use: "Keeping muscle mass during immobilisation.",
    kind: "rehab",
    area: "thigh",
    channels: [2, 4],
  },
  {
    name: "Shoulder subluxation – supraspinatus",
    category: REHAB,
    use: "Supports the shoulder joint after a stroke by activating supraspinatus and deltoid.",
    kind: "rehab",
    area: "shoulder",
    channels: [1, 2],
  },
  {
    name: "Warm-up – legs",
    category: SPORT,
    use: "Preparing the legs before training or competition.",
    kind: "massage",
    area: "thigh",
    channels: [2, 4],
  },
  {
    name: "Explosive strength",
    category: SPORT,
    use: "Short maximal contractions with long rests for power athletes.",
    kind: "nmes",
    area: "thigh",
    channels: [2, 4],
  },
  {
    name: "Endurance – thigh",
    category: SPORT,
    use: "Long, moderate contractions for muscular endurance.",
    kind: "endurance",
    area: "thigh",
    channels: [2, 4],
  },
  {
    name: "Core stability",
    category: SPORT,
    use: "Abdominal and lower back muscles together for a stable core.",
    kind: "nmes",
    area: "abdomen",
    channels: [4, 4],
  },
];

const POLARITY = { sym: "biphasic symmetric", asym: "biphasic asymmetric", alt: "alternating" } as const;
const round = (value: number, step: number) => Math.round(value / step) * step;

interface ChannelRange {
  current: [number, number];
  frequency: [number, number];
  polarity: readonly string[];
  rise: [number, number];
  hold: [number, number];
  fall: [number, number];
}

const RANGES: Record<Kind, ChannelRange> = {
  tens: {
    current: [10, 30],
    frequency: [80, 120],
    polarity: [POLARITY.sym],
    rise: [0, 500],
    hold: [5000, 30000],
    fall: [0, 500],
  },
  tens_low: {
    current: [15, 40],
    frequency: [2, 4],
    polarity: [POLARITY.sym, POLARITY.alt],
    rise: [500, 1000],
    hold: [10000, 30000],
    fall: [500, 1000],
  },
  tens_burst: {
    current: [15, 35],
    frequency: [80, 100],
    polarity: [POLARITY.sym],
    rise: [100, 200],
    hold: [200, 500],
    fall: [100, 200],
  },
  labour: {
    current: [8, 35],
    frequency: [2, 110],
    polarity: [POLARITY.sym],
    rise: [200, 1000],
    hold: [10000, 60000],
    fall: [200, 1000],
  },
  nmes: {
    current: [25, 60],
    frequency: [35, 75],
    polarity: [POLARITY.sym, POLARITY.asym],
    rise: [1000, 2000],
    hold: [4000, 10000],
    fall: [500, 1000],
  },
  endurance: {
    current: [20, 45],
    frequency: [15, 30],
    polarity: [POLARITY.sym],
    rise: [1500, 3000],
    hold: [10000, 20000],
    fall: [1000, 2000],
  },
  pelvic_strength: {
    current: [10, 40],
    frequency: [35, 50],
    polarity: [POLARITY.asym, POLARITY.sym],
    rise: [500, 1500],
    hold: [3000, 6000],
    fall: [500, 1000],
  },
  pelvic_urge: {
    current: [5, 25],
    frequency: [5, 10],
    polarity: [POLARITY.asym],
    rise: [500, 1000],
    hold: [5000, 15000],
    fall: [500, 1000],
  },
  massage: {
    current: [10, 30],
    frequency: [3, 10],
    polarity: [POLARITY.sym, POLARITY.alt],
    rise: [200, 500],
    hold: [2000, 5000],
    fall: [200, 500],
  },
  circulation: {
    current: [10, 30],
    frequency: [1, 8],
    polarity: [POLARITY.sym],
    rise: [500, 1000],
    hold: [1000, 3000],
    fall: [500, 1000],
  },
  rehab: {
    current: [15, 45],
    frequency: [30, 40],
    polarity: [POLARITY.sym, POLARITY.asym],
    rise: [1000, 2000],
    hold: [3000, 8000],
    fall: [1000, 1500],
  },
};

/** Phase durations (s) by kind: the work phases; warm-up and cool-down are shorter. */
const WORK_SECONDS: Record<Kind, [number, number]> = {
  tens: [600, 1800],
  tens_low: [600, 1200],
  tens_burst: [600, 1200],
  labour: [1800, 3600],
  nmes: [300, 900],
  endurance: [600, 1200],
  pelvic_strength: [300, 600],
  pelvic_urge: [600, 1200],
  massage: [300, 900],
  circulation: [600, 1200],
  rehab: [300, 900],
};

function channel(rng: Prng, r: ChannelRange, intensity: number): Channel {
  const between = ([a, b]: [number, number]) => a + (b - a) * rng.next();
  return {
    current: Math.max(1, round(between(r.current) * intensity, 0.5)),
    frequency: r.frequency[1] <= 10 ? round(between(r.frequency), 0.5) : Math.round(between(r.frequency)),
    polarity: rng.pick(r.polarity),
    riseTime: round(between(r.rise), 50),
    holdTime: round(between(r.hold), 100),
    fallTime: round(between(r.fall), 50),
  };
}

/** 1-6 phases of 1-4 channels in the program's ranges; longer programs get a gentle warm-up and cool-down. */
export function phasesFor(spec: TreatmentSpec, rng: Prng): Phase[] {
  const r = RANGES[spec.kind];
  const channels = rng.int(spec.channels[0], spec.channels[1]);
  const count = rng.int(1, 6);
  const [minWork, maxWork] = WORK_SECONDS[spec.kind];
  return Array.from({ length: count }, (_, i) => {
    const edge = count >= 3 && (i === 0 || i === count - 1);
    const intensity = edge ? 0.6 : 0.85 + 0.15 * rng.next();
    const duration = edge ? rng.int(2, 5) * 60 : round(minWork + (maxWork - minWork) * rng.next(), 30);
    return { duration, channels: Array.from({ length: channels }, () => channel(rng, r, intensity)) };
  });
}
