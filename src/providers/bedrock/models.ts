/**
 * Which Bedrock models are Anthropic's: those are called through InvokeModel with the Messages body
 * (B, every feature Anthropic's API has); every other model through Converse.
 */

/** `anthropic.claude-…`, with or without a cross-region inference profile prefix (`us.`, `eu.`, `apac.`, `global.`…). */
const anthropicModelId = /^(?:[a-z]{2,6}\.)?anthropic\./;

/** An ARN (foundation model, inference profile, provisioned throughput) whose resource names Anthropic's model. */
const anthropicArn = /^arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:[a-z-]+\/(?:[a-z]{2,6}\.)?anthropic\./;

export function isAnthropicModel(model: string): boolean {
  return anthropicModelId.test(model) || anthropicArn.test(model);
}
