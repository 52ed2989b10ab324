/**
 * MCP entity types (2025 era), named exactly as in the specification's schema. Optional
 * members added by later revisions are marked with the revision that introduced them;
 * the roles strip nothing — they send what the user supplies.
 */
import type { JSONObject } from './jsonrpc/types.js';

/** `_meta` bag allowed on most objects. */
export type Meta = { [key: string]: unknown };

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** Name and version of a client or server (`clientInfo` / `serverInfo`). */
export interface Implementation {
  name: string;
  version: string;
  /** 2025-06-18 */
  title?: string;
  /** 2025-11-25 */
  icons?: Icon[];
  /** 2025-11-25 */
  websiteUrl?: string;
  /** 2025-11-25 */
  description?: string;
}

export interface ServerCapabilities {
  experimental?: JSONObject;
  logging?: JSONObject;
  completions?: JSONObject;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  [key: string]: unknown;
}

export interface ClientCapabilities {
  experimental?: JSONObject;
  roots?: { listChanged?: boolean };
  sampling?: { context?: JSONObject; tools?: JSONObject };
  elicitation?: { form?: JSONObject; url?: JSONObject };
  [key: string]: unknown;
}

export type Role = 'user' | 'assistant';

export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}
/** 2025-06-18 */
export interface ResourceLink extends Resource {
  type: 'resource_link';
}
/** Sampling with tools (2025-11-25). */
export interface ToolUseContent {
  type: 'tool_use';
  id: string;
  name: string;
  input: JSONObject;
  _meta?: Meta;
}
export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: JSONObject;
  isError?: boolean;
  _meta?: Meta;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool definition as it appears in `tools/list`. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JSONObject;
  outputSchema?: JSONObject;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  execution?: JSONObject;
  _meta?: Meta;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: JSONObject;
  isError?: boolean;
  _meta?: Meta;
  [key: string]: unknown;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
}

export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}

export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

export interface SamplingMessage {
  role: Role;
  /** An array only in 2025-11-25 and later. */
  content: SamplingContent | SamplingContent[];
  _meta?: Meta;
}

export interface ModelPreferences {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}

export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: ModelPreferences;
  metadata?: JSONObject;
  /** 2025-11-25 (SEP-1577); needs the client's `sampling.tools` capability. */
  tools?: Tool[];
  /** 2025-11-25 (SEP-1577). */
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  _meta?: Meta;
}

export interface CreateMessageResult {
  role: Role;
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | string;
  _meta?: Meta;
  [key: string]: unknown;
}

/** A restricted JSON Schema of a form elicitation: a flat object of primitive fields. */
export interface ElicitRequestedSchema {
  type: 'object';
  properties: { [name: string]: JSONObject };
  required?: string[];
  [key: string]: unknown;
}

export interface ElicitFormParams {
  mode?: 'form';
  message: string;
  requestedSchema: ElicitRequestedSchema;
  _meta?: Meta;
}

/** 2025-11-25 (SEP-1036). */
export interface ElicitUrlParams {
  mode: 'url';
  message: string;
  url: string;
  elicitationId: string;
  _meta?: Meta;
}

export type ElicitRequestParams = ElicitFormParams | ElicitUrlParams;

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: { [name: string]: string | number | boolean | string[] };
  _meta?: Meta;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  _meta?: Meta;
}
