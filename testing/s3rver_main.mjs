// Runs s3rver (an S3 protocol server from npm) for the tests: node testing/s3rver_main.mjs <dir> <bucket> [port].
// Prints "listening <port>" once it accepts requests.
import S3rver from "s3rver";

const [directory, bucket, port = "0"] = process.argv.slice(2);
const server = new S3rver({
  address: "127.0.0.1",
  port: Number(port),
  directory,
  silent: true,
  configureBuckets: [{ name: bucket }],
});
const address = await server.run();
console.log(`listening ${address.port}`);
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
