import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, conv1d: torch.Tensor):
        l_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_weight_ = L_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_weight_
        l_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_bias_ = L_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_bias_
        group_norm = torch.nn.functional.group_norm(conv1d, 32, l_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_weight_, l_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_bias_, 1e-05);  conv1d = l_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_weight_ = l_self_modules_feature_extractor_modules_conv_layers_modules_0_modules_layer_norm_parameters_bias_ = None
        gelu = torch._C._nn.gelu(group_norm);  group_norm = None
        return (gelu,)
